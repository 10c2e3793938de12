/**
 * `--merge` is how an operator has every byte of an index read: with one segment and no deletions there is
 * nothing to merge, and the index is read whole all the same. A damaged one-segment index had passed as
 * "nothing to merge" (the docs round's finding), though the docs promise that `--merge` refuses it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mergeAll } from '../../src/search/merge.js';
import { readManifest, segmentFile, storedFile } from '../../src/search/manifest.js';
import { randomArticles, tempDir, writeIndex } from './helpers.js';

describe('--merge of one segment without deletions', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  const snapshotOf = async () => ({ files: (await readdir(dir)).sort(), manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8') });
  const onlySegment = async () => (await readManifest(dir)).segments[0]!.name;

  it('changes nothing and answers null for an intact index', async () => {
    await writeIndex(dir, randomArticles(30, 1, 'a'));
    const before = await snapshotOf();
    expect(await mergeAll(dir)).toBeNull();
    expect(await snapshotOf()).toEqual(before);
  });

  it('refuses a truncated segment file, naming it', async () => {
    await writeIndex(dir, randomArticles(30, 1, 'a'));
    const file = segmentFile(dir, await onlySegment());
    await truncate(file, 100);
    const before = await snapshotOf();
    await expect(mergeAll(dir)).rejects.toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*damaged`));
    expect(await snapshotOf()).toEqual(before);
  });

  it('refuses a byte changed in a postings array, found by its checksum', async () => {
    await writeIndex(dir, randomArticles(30, 1, 'a'));
    const file = segmentFile(dir, await onlySegment());
    const bytes = await readFile(file);
    // Past the header, in the arrays: the last quarter of the file is postings and columns.
    bytes[Math.floor(bytes.length * 0.8)]! ^= 0x5a;
    await writeFile(file, bytes);
    await expect(mergeAll(dir)).rejects.toThrow(file);
  });

  it('refuses a stored fragment changed in place, naming the stored file', async () => {
    await writeIndex(dir, randomArticles(30, 1, 'a'), undefined, 'none');
    const file = storedFile(dir, await onlySegment());
    const bytes = await readFile(file);
    const name = bytes.lastIndexOf('"article_id":');
    expect(name).toBeGreaterThan(0);
    bytes[name + 3] = 'X'.charCodeAt(0);
    await writeFile(file, bytes);
    const before = await snapshotOf();
    await expect(mergeAll(dir)).rejects.toThrow(/does not match its checksum.*is damaged: re-ingest/);
    expect(await snapshotOf()).toEqual(before);
  });
});
