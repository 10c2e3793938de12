/**
 * The write lock is made with link(); on a file system without hard links the
 * writer must say so and what to do, and leave nothing behind.
 */
import { readdir } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { acquireWriteLock } from '../../src/search/write-lock.js';
import { tempDir } from '../search/helpers.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const refused = () => Promise.reject(Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' }));
  return { ...actual, link: refused };
});

describe('the write lock on a file system without hard links', () => {
  it('is refused with a message naming the cause and the remedy, leaving no file', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await expect(acquireWriteLock(dir)).rejects.toThrow(/does not allow hard links \(EPERM\).*local file system/);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
