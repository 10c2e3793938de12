/**
 * Readers and writers size buffers from a manifest's counts: a count edited by
 * hand beyond what an index can hold (ids are Int32) is refused, naming the
 * manifest file and the field, instead of failing later in an allocation.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IndexWriter } from '../../src/search/index-writer.js';
import { MANIFEST_FILE, readManifest } from '../../src/search/manifest.js';
import { article, tempDir, writeIndex } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('manifest counts', () => {
  it('refuses a count beyond what an index can hold, in readers and in the next writer', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    await writeIndex(dir, [article('a-0', ['some text']), article('a-1', ['more text'])]);
    const file = path.join(dir, MANIFEST_FILE);
    const manifest = JSON.parse(await readFile(file, 'utf8'));
    for (const [field, value] of [['articles', Number.MAX_SAFE_INTEGER], ['paragraphs', 2 ** 31]] as const) {
      const edited = structuredClone(manifest);
      edited.segments[0][field] = value;
      await writeFile(file, JSON.stringify(edited));
      const expected = `${file} is not a valid index manifest: segments[0].${field}`;
      await expect(readManifest(dir)).rejects.toThrow(expected);
      await expect(IndexWriter.open(dir)).rejects.toThrow(expected);
    }
  });
});
