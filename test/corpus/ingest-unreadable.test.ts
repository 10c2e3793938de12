/** An input file that cannot be opened is reported and skipped, whether its format is detected or given with --format. */
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { ingest } from '../../src/corpus/ingest.js';
import { tempDir } from '../search/helpers.js';

describe('ingest of a file that cannot be opened', () => {
  it.each([undefined, 'articles-jsonl'] as const)('with format %s: skips it, names it, and indexes the others', async (format) => {
    const { dir, cleanup } = await tempDir();
    // A socket is a path that stat finds and open refuses (ENXIO), for root too, whom permissions do not stop.
    const socket = path.join(dir, 'socket');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const good = path.join(dir, 'good.jsonl');
      await writeFile(good, JSON.stringify({ article_id: 'a', title: 'T', paragraphs: [{ section: 'S', text: 'Place cells.' }] }));
      const skipped: string[] = [];
      const report = await ingest({ inputs: [socket, good], indexDir: path.join(dir, 'index'), format, onSkip: (source, message) => skipped.push(`${source.file}: ${message}`) });
      expect(report).toMatchObject({ files: 2, skippedFiles: 1, indexed: 1 });
      expect(skipped).toEqual([expect.stringMatching(new RegExp(`^${socket}: ENXIO`))]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await cleanup();
    }
  });
});
