/** The ingestion command's deletions and merge as a user runs them: counts printed, index changed, exit codes. */
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { liveIds, tempDir } from '../search/helpers.js';
import { readManifest } from '../../src/search/manifest.js';
import { ingestCli } from './ingest-command.js';


const line = (id: string) => JSON.stringify({ article_id: id, title: `Title ${id}`, paragraphs: [{ section: 'Results', text: `text of ${id}` }] });

describe('npm run ingest -- --delete / --delete-file / --merge', () => {
  it('deletes by id and from a file, reports what it did, merges the deletions away, and re-ingests', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      const input = path.join(dir, 'in.jsonl');
      await writeFile(input, ['a', 'b', 'c', 'd', 'e'].map(line).join('\n'));
      expect(ingestCli('--input', input, '--index', indexDir).code).toBe(0);

      const byId = ingestCli('--index', indexDir, '--delete', 'a', 'b', 'nope');
      expect(byId.code).toBe(0);
      expect(byId.stderr).toMatch(/added 0, replaced 0, deleted 2 \(1 not found\)/);
      expect(byId.stderr).toContain('not deleted (no live article has the id): nope');
      // An id that would look like another (a zero-width space, a comma and a space) is quoted with its hidden characters shown.
      const lookalikes = ingestCli('--index', indexDir, '--delete', 'c\u200b', 'x, y');
      expect(lookalikes.stderr).toContain('not deleted (no live article has the id): "c\\u{200b}", "x, y"');
      const idFile = path.join(dir, 'withdrawn.txt');
      await writeFile(idFile, 'c\n\n  d  \n');
      expect(ingestCli('--index', indexDir, '--delete-file', idFile).stderr).toMatch(/deleted 2 in/);
      expect(await liveIds(indexDir)).toEqual(['e']);
      expect((await readManifest(indexDir)).segments[0]!.deletedArticles).toBe(4);

      const merged = ingestCli('--index', indexDir, '--merge');
      expect(merged.code).toBe(0);
      expect(merged.stderr).toMatch(/merge: 1 segment\(s\) -> seg-\d+, 1 articles, 4 deleted dropped/);
      expect((await readManifest(indexDir)).segments).toMatchObject([{ articles: 1, deletedArticles: 0, deletions: null }]);

      // Ingesting deleted ids again brings them back; an input and a --delete of the same id: the deletion wins.
      const again = ingestCli('--input', input, '--index', indexDir, '--delete', 'e');
      expect(again.stderr).toMatch(/added 4, replaced 1, deleted 1 in/);
      expect(await liveIds(indexDir)).toEqual(['a', 'b', 'c', 'd']);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('refuses a bad merge factor and an argument that follows no list', () => {
    expect(ingestCli('--index', '/tmp/x', '--merge', '--merge-factor', '1').code).toBe(2);
    expect(ingestCli('--index', '/tmp/x', '--merge', 'stray').code).toBe(2);
  });
});
