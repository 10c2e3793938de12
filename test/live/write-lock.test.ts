/**
 * The writer lock between ingest and merge processes: a lock that has just
 * been created, before its holder's pid could be read from it, belongs to a
 * live writer and is not taken over; a lock of a dead process still is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeUnreferenced } from '../../src/search/manifest.js';
import { acquireWriteLock, IndexLockedError } from '../../src/search/write-lock.js';
import { tempDir } from '../search/helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('the index writer lock', () => {
  it('does not take over a lock whose holder has not written its pid yet', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const lockFile = path.join(dir, 'write.lock');
    await writeFile(lockFile, '');
    await expect(acquireWriteLock(dir)).rejects.toThrow(IndexLockedError);
    expect(await readFile(lockFile, 'utf8')).toBe('');
  });

  it('is never seen without its holder, and a dead holder\'s lock is taken over', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const lockFile = path.join(dir, 'write.lock');
    await writeFile(lockFile, '999999999');
    const { release } = await acquireWriteLock(dir);
    expect(await readFile(lockFile, 'utf8')).toBe(String(process.pid));
    await expect(acquireWriteLock(dir)).rejects.toThrow(`process ${process.pid}`);
    await release();
    await (await acquireWriteLock(dir)).release();
  });

  it("a writer's cleanup removes the pid file a killed writer left while locking, not a live writer's", async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    await writeFile(path.join(dir, 'write.lock.tmp-999999999'), '999999999');
    await writeFile(path.join(dir, `write.lock.tmp-${process.pid}`), String(process.pid));
    await removeUnreferenced(dir, { formatVersion: 0, generation: 0, segments: [] });
    expect(await readdir(dir)).toEqual([`write.lock.tmp-${process.pid}`]);
  });
});
