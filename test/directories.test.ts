/** `makeDirectories`: mkdir -p that ends with the kernel's error where Node 20's recursive mkdir spins. */
import { describe, expect, it } from 'vitest';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeDirectories } from '../src/directories.js';
import { tempDir } from './search/helpers.js';

describe('makeDirectories', () => {
  it('makes every missing level, and accepts a directory that exists', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const deep = path.join(dir, 'a', 'b', 'c');
      makeDirectories(deep);
      expect(statSync(deep).isDirectory()).toBe(true);
      expect(() => makeDirectories(deep)).not.toThrow();
      expect(() => makeDirectories(dir)).not.toThrow();
    } finally {
      await cleanup();
    }
  });

  it('refuses a path that is a file or lies under one, creating nothing', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = path.join(dir, 'file');
      writeFileSync(file, '');
      expect(() => makeDirectories(file)).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
      expect(() => makeDirectories(path.join(file, 'x', 'y'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
      expect(existsSync(path.join(file, 'x'))).toBe(false);
    } finally {
      await cleanup();
    }
  });

  // mkdirSync('/proc/self/x', { recursive: true }) never returns on Node 20.
  it.skipIf(!existsSync('/proc/self'))('fails with ENOENT where the kernel cannot make the directory (under /proc)', () => {
    expect(() => makeDirectories('/proc/self/litserve-test/index')).toThrow(expect.objectContaining({ code: 'ENOENT', path: '/proc/self/litserve-test' }));
  });
});
