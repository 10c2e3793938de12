/**
 * A writer (ingestion, merge) does not build on an index file it cannot read:
 * it refuses, naming the file, saying the index is damaged and what to do, and
 * leaves the index as it was. A writer that runs out of disk says so for its
 * index and takes away the files of the generation it did not publish.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { IndexWriter } from '../../src/search/index-writer.js';
import { mergeAll } from '../../src/search/merge.js';
import { readManifest } from '../../src/search/manifest.js';
import { indexWriteError } from '../../src/search/segment/errors.js';
import { randomArticles, tempDir, writeIndex } from './helpers.js';
import { mountSmallDisk } from '../reliability/small-disk.js';

describe('a damaged index', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  /** Two generations; the newest segment's file is returned. */
  async function twoSegments(): Promise<string> {
    await writeIndex(dir, randomArticles(300, 1, 'a'), undefined, 'none');
    await writeIndex(dir, randomArticles(1500, 2, 'b'), undefined, 'none');
    const { segments } = await readManifest(dir);
    return path.join(dir, `${segments.at(-1)!.name}.seg`);
  }

  const snapshotOf = async () => ({ files: (await readdir(dir)).sort(), manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8') });

  it('with a truncated segment is refused by ingestion, which names the file and publishes nothing', async () => {
    const newest = await twoSegments();
    await truncate(newest, 20000);
    const before = await snapshotOf();
    const opening = IndexWriter.open(dir);
    await expect(opening).rejects.toThrow(newest);
    await expect(opening).rejects.toThrow(/truncated.*index .* is damaged: re-ingest .* new index directory .*servers keep serving generation 2/);
    expect(await snapshotOf()).toEqual(before);
  });

  it('with a truncated segment is refused by a merge, which names the file', async () => {
    const newest = await twoSegments();
    await truncate(newest, 20000);
    const before = await snapshotOf();
    await expect(mergeAll(dir)).rejects.toThrow(new RegExp(`${newest}.*truncated.*is damaged: re-ingest`));
    expect(await snapshotOf()).toEqual(before);
  });

  it('with damaged stored fragments is refused by a merge, which names the stored file', async () => {
    const newest = await twoSegments();
    const storedFile = newest.replace(/\.seg$/, '.stored');
    const bytes = await readFile(storedFile);
    // Quotes become backslashes over a stretch of fragments: JSON that no longer parses.
    for (let i = Math.floor(bytes.length / 3); i < Math.min(bytes.length, Math.floor(bytes.length / 3) + 20000); i++) if (bytes[i] === 34) bytes[i] = 92;
    await writeFile(storedFile, bytes);
    const before = await snapshotOf();
    await expect(mergeAll(dir)).rejects.toThrow(new RegExp(`${storedFile}.*is damaged: re-ingest`));
    expect(await snapshotOf()).toEqual(before);
  });
});

const disk = mountSmallDisk('2m');
if (typeof disk === 'string') console.warn(`SKIPPED: the full-disk ingestion test: ${disk}`);

describe.skipIf(typeof disk === 'string')('an ingestion that fills the disk', () => {
  const { dir: mount, unmount } = disk as Exclude<typeof disk, string>;
  afterEach(() => unmount());

  it('names the index, says it is unchanged, and leaves none of its files on the disk', async () => {
    const dir = path.join(mount, 'idx');
    await writeIndex(dir, randomArticles(20, 1, 'a'));
    const before = { files: (await readdir(dir)).sort(), manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8') };
    const writer = await IndexWriter.open(dir, { maxSegmentBytes: 256 * 1024 });
    let failure: unknown = null;
    try {
      for (const article of randomArticles(20000, 2, 'b')) await writer.add(article);
      await writer.commit();
    } catch (error) {
      failure = error;
      await writer.close();
    }
    expect(String(failure)).toContain(`no space left on device (no free block, or no free inode: \`df -h\` and \`df -i\` tell which) writing the index ${dir}: the index is unchanged (generation 1)`);
    expect({ files: (await readdir(dir)).sort(), manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8') }).toEqual(before);
  });
});

describe('a full disk met by the first ingestion into a directory', () => {
  it('says no index was written, not that a generation 0 is unchanged', () => {
    const failure = indexWriteError('/data/index', 0, Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' }));
    expect(String(failure)).toMatch(/ writing the index \/data\/index: no index was written; free space and run again$/);
  });
});
