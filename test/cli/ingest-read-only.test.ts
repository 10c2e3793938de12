/**
 * `ingest --index` on a read-only file system says that the index folder takes no writes: it had said
 * `EROFS: read-only file system, open 'idx/write.lock.tmp-1234'`, naming a file the user never made.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mountSmallDisk } from '../reliability/small-disk.js';
import { ingestCli } from './ingest-command.js';

const disk = mountSmallDisk('1m');
if (typeof disk === 'string') console.warn(`SKIPPED: the read-only index test: ${disk}`);
afterAll(() => {
  if (typeof disk !== 'string') disk.unmount();
});

describe.skipIf(typeof disk === 'string')('ingest into an index on a read-only file system', () => {
  it('is refused naming the index folder and why, exit 1', async () => {
    const { dir } = disk as Exclude<typeof disk, string>;
    const index = path.join(dir, 'index');
    await mkdir(index);
    const input = path.join(dir, 'in.jsonl');
    await writeFile(input, `${JSON.stringify({ article_id: 'a1', title: 'T', paragraphs: [{ section: 'S', text: 'place cells' }] })}\n`);
    execFileSync('mount', ['-o', 'remount,ro', dir]);
    try {
      const result = ingestCli('--input', input, '--index', index);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error: cannot write in the index directory ${index} (EROFS: a read-only file system): an index is built where it can be written`);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', dir]);
    }
  });
});
