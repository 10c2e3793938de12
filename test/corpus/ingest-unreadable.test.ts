/**
 * An entry of an input directory that cannot be read as a file is reported and skipped, whether the format is detected or given with
 * --format (given as an input itself, it ends the run: see input-kinds.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { ingest } from '../../src/corpus/ingest.js';
import { tempDir } from '../search/helpers.js';

describe('ingest of a file that cannot be opened', () => {
  it.each([undefined, 'articles-jsonl'] as const)('with format %s: skips it, names it, and indexes the others', async (format) => {
    const { dir, cleanup } = await tempDir();
    // A socket: an entry the walk finds and no reader can open, also for root, whom a file's permissions do not stop.
    const papers = path.join(dir, 'papers');
    await mkdir(papers);
    const socket = path.join(papers, 'socket');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const good = path.join(papers, 'good.jsonl');
      await writeFile(good, JSON.stringify({ article_id: 'a', title: 'T', paragraphs: [{ section: 'S', text: 'Place cells.' }] }));
      const skipped: string[] = [];
      const report = await ingest({ inputs: [papers], indexDir: path.join(dir, 'index'), format, onSkip: (source, message) => skipped.push(`${source.file}: ${message}`) });
      expect(report).toMatchObject({ files: 2, skippedFiles: 1, indexed: 1 });
      expect(skipped).toEqual([`${socket}: a socket, not a regular file: skipped`]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await cleanup();
    }
  });
});
