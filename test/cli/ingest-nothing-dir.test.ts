/** A run that indexes nothing leaves no index directory it had to make, and one that existed as it was. */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../search/helpers.js';
import { ingestCli } from './ingest-command.js';


/** Records the reader parses but ingestion skips: their ids hold an invisible character. */
const badIds = ['a\u200b', 'b\u200b'].map((id) => JSON.stringify({ article_id: id, title: 't', paragraphs: [{ section: 'Results', text: 'x' }] })).join('\n');

// Exit code 1 and the "nothing indexed; index unchanged" summary are the command's answer to a run that indexed nothing.
describe('npm run ingest that indexes nothing', () => {
  it('leaves no index directory behind, nor the parents it made, when every record is skipped', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const input = path.join(dir, 'in.jsonl');
      await writeFile(input, badIds);
      const parent = path.join(dir, 'new');
      const { code, stderr } = ingestCli('--input', input, '--index', path.join(parent, 'index'));
      expect(code).toBe(1);
      expect(stderr).toMatch(/read 2, indexed 0 \(replaced 0\), skipped 2.*nothing indexed; index unchanged/);
      expect(existsSync(parent)).toBe(false);
    } finally {
      await cleanup();
    }
  });

  it('leaves no index directory behind when the inputs hold no record', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const input = path.join(dir, 'empty.jsonl');
      await writeFile(input, '');
      const index = path.join(dir, 'index');
      const { code, stderr } = ingestCli('--input', input, '--index', index);
      expect(code).toBe(1);
      expect(stderr).toContain('read 0, indexed 0');
      expect(existsSync(index)).toBe(false);
    } finally {
      await cleanup();
    }
  });

  it('keeps a directory that existed, with what it held', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const input = path.join(dir, 'in.jsonl');
      await writeFile(input, badIds);
      const index = path.join(dir, 'index');
      await mkdir(index);
      await writeFile(path.join(index, 'README'), 'kept');
      expect(ingestCli('--input', input, '--index', index).code).toBe(1);
      expect(await readdir(index)).toEqual(['README']);
      const empty = path.join(dir, 'empty-index');
      await mkdir(empty);
      expect(ingestCli('--input', input, '--index', empty).code).toBe(1);
      expect(await readdir(empty)).toEqual([]);
    } finally {
      await cleanup();
    }
  });

  it('refuses to delete from or merge an index that does not exist, and makes no directory', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const index = path.join(dir, 'typo', 'index');
      for (const args of [['--merge'], ['--delete', 'a1'], ['--delete', 'a1', '--merge']]) {
        const { code, stderr } = ingestCli('--index', index, ...args);
        expect(code).toBe(1);
        expect(stderr).toContain(`error: no index in ${index} (manifest.json not found): nothing to delete or merge`);
        expect(existsSync(path.join(dir, 'typo'))).toBe(false);
      }
    } finally {
      await cleanup();
    }
  });
});
