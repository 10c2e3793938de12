/**
 * A writer that published nothing removes the index directories it made once it has let go of the lock
 * (IndexWriter.close). Another writer that found or made the same directory an instant before writes its
 * lock's pid file into a directory that is gone: it makes the directory again rather than failing.
 */
import { readdir, readFile, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireWriteLock } from '../../src/search/write-lock.js';
import { tempDir } from '../search/helpers.js';

/** How many of the next pid-file writes find their directory removed just before them. */
const removals = vi.hoisted(() => ({ left: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const writeFile = (async (file: string, ...rest: [string]) => {
    if (typeof file === 'string' && /write\.lock\.tmp-\d+$/.test(file) && removals.left > 0) {
      removals.left--;
      await actual.rmdir(path.dirname(file)); // the other writer's clean-up, just before this write
    }
    return actual.writeFile(file, ...rest);
  }) as typeof actual.writeFile;
  return { ...actual, writeFile };
});

afterEach(() => {
  removals.left = 0;
});

describe('the write lock of a directory removed under it', () => {
  it('makes the directory again and takes the lock, which it then gives back', async () => {
    const { dir: root, cleanup } = await tempDir();
    const dir = path.join(root, 'index');
    try {
      removals.left = 2;
      const lock = await acquireWriteLock(dir);
      expect(removals.left).toBe(0);
      expect(await readFile(path.join(dir, 'write.lock'), 'utf8')).toBe(String(process.pid));
      // Made by this writer (the second time), so its own clean-up may remove it.
      expect(lock.madeDirectories).toEqual([dir]);
      await lock.release();
      expect(await readdir(dir)).toEqual([]);
      await rmdir(dir);
    } finally {
      await cleanup();
    }
  });

  it('gives up with the index named after the third removal in a row', async () => {
    const { dir: root, cleanup } = await tempDir();
    const dir = path.join(root, 'index');
    try {
      removals.left = 3;
      await expect(acquireWriteLock(dir)).rejects.toMatchObject({ message: `the index directory ${dir} was removed 3 times in a row while this writer was taking its lock; is another program removing it?`, cause: { code: 'ENOENT' } });
      expect(await readdir(root)).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
