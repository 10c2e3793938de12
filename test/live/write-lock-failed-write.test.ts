/**
 * The write lock's pid file is written aside before it is linked in place; a
 * write that fails midway (a full disk) must not leave it behind.
 */
import { readdir } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { acquireWriteLock } from '../../src/search/write-lock.js';
import { tempDir } from '../search/helpers.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  // Like a full disk: the file is created, its contents do not fit.
  const fullDisk = async (file: Parameters<typeof actual.writeFile>[0]) => {
    await actual.writeFile(file, '');
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  return { ...actual, writeFile: fullDisk };
});

describe('the write lock on a full disk', () => {
  it('fails with the write error and leaves no pid file', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await expect(acquireWriteLock(dir)).rejects.toMatchObject({ message: expect.stringContaining(`df -i\` tell which) writing the index ${dir}`), cause: { code: 'ENOSPC' } });
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
