/**
 * An empty write lock (a writer that died between creating it and writing its pid, or an older version's)
 * names no process to check. A fresh one may be a writer starting and is refused, saying when it will be
 * taken over; one that has named no process for longer than that bound is abandoned and taken over, as the
 * lock of a dead process is: it had blocked ingestion until removed by hand.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { acquireWriteLock, IndexLockedError } from '../../src/search/write-lock.js';
import { tempDir } from '../search/helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function emptyLock(ageMs: number): Promise<{ dir: string; lockFile: string }> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  const lockFile = path.join(dir, 'write.lock');
  await writeFile(lockFile, '');
  const modified = new Date(Date.now() - ageMs);
  await utimes(lockFile, modified, modified);
  return { dir, lockFile };
}

describe('an empty write lock', () => {
  it('is refused while fresh, saying when it will be taken over', async () => {
    const { dir, lockFile } = await emptyLock(30_000);
    const refused = acquireWriteLock(dir);
    await expect(refused).rejects.toThrow(IndexLockedError);
    await expect(refused).rejects.toThrow(/names no process yet.*taken over once 60 s old/);
    expect(await readFile(lockFile, 'utf8')).toBe('');
  });

  it('is taken over once it has named no process for over a minute', async () => {
    const { dir, lockFile } = await emptyLock(2 * 60_000);
    const { release } = await acquireWriteLock(dir);
    expect(await readFile(lockFile, 'utf8')).toBe(String(process.pid));
    await release();
  });
});
