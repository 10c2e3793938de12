/**
 * A file write moves at most about 2 GiB at once on Linux, and may move less: writeWhole writes the rest. Shown with
 * a handle that moves a few bytes per call (no test writes 2 GiB), and through a real file.
 */
import { type FileHandle, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from 'vitest';
import { writeWhole } from '../../src/search/write-whole.js';
import { tempDir } from './helpers.js';

test('a handle moving at most 3 bytes per write still gets every byte, in order', async () => {
  const written: number[] = [];
  const handle = {
    write: async (bytes: Uint8Array, offset: number, length: number) => {
      const moved = Math.min(3, length);
      written.push(...bytes.subarray(offset, offset + moved));
      return { bytesWritten: moved, buffer: bytes };
    },
  };
  const bytes = Uint8Array.from({ length: 20 }, (_, i) => i);
  await writeWhole(handle as unknown as Pick<FileHandle, 'write'>, bytes);
  expect(written).toEqual([...bytes]);
});

test('a write that moves nothing is an error, not a loop', async () => {
  const handle = { write: async (bytes: Uint8Array) => ({ bytesWritten: 0, buffer: bytes }) };
  await expect(writeWhole(handle as unknown as Pick<FileHandle, 'write'>, new Uint8Array(5))).rejects.toThrow('a write moved no byte, 5 of 5 left');
});

test('through a real file, consecutive writes follow each other', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 'f');
    const handle = await open(file, 'wx');
    await writeWhole(handle, Buffer.from('abc'));
    await writeWhole(handle, Buffer.from('defg'));
    await handle.close();
    expect(await readFile(file, 'utf8')).toBe('abcdefg');
  } finally {
    await cleanup();
  }
});
