/**
 * A file the manifest names but the directory lacks (removed by hand, lost in
 * a copy) makes the index damaged, and serve says so in the words ingest and
 * merge use, and so do they: the system's bare "ENOENT: no such file or
 * directory, stat …" had said neither that the manifest names the file nor
 * what to do, and a writer had called a missing stored-fields file one of an
 * older version of litserve. A server
 * keeps its generation and its reload fails with the same words, once it has
 * read the manifest again in case a writer removed the file meanwhile.
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GenerationLoadError, LiveIndex } from '../../src/live/live-index.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { mergeAll } from '../../src/search/merge.js';
import { IndexSnapshot } from '../../src/search/snapshot.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';

const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** An index of two segments, the second with a deletions file. */
async function twoSegments(): Promise<string> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  await writeIndex(dir, [article('a', ['first text']), article('b', ['second text'])]);
  await writeIndex(dir, [article('c', ['third text']), article('d', ['fourth text'])]);
  const writer = await IndexWriter.open(dir);
  writer.delete('c');
  await writer.commit();
  return dir;
}

// A copy in progress shows the same (the manifest copied before a file it names): the advice says so too.
const damaged = (dir: string, file: string) =>
  `${path.join(dir, file)} is missing, though the manifest names it; the index ${dir} is damaged (or its copy is not complete: ` +
  'copy manifest.json last, docs/DEPLOY.md): re-ingest the corpus into a new index directory';

describe('an index missing a file its manifest names', () => {
  it.each([['.seg'], ['.stored'], ['.del-']])('is refused at load, naming the %s file and what to do', async (kind) => {
    const dir = await twoSegments();
    const file = (await readdir(dir)).filter((name) => name.startsWith('seg-000002') && name.includes(kind))[0]!;
    await rm(path.join(dir, file));
    await expect(IndexSnapshot.open(dir)).rejects.toThrow(damaged(dir, file));
  });

  it.each([['.seg'], ['.stored'], ['.del-']])('is refused by ingestion and merging in the same words (the %s file)', async (kind) => {
    const dir = await twoSegments();
    const file = (await readdir(dir)).filter((name) => name.startsWith('seg-000002') && name.includes(kind))[0]!;
    await rm(path.join(dir, file));
    const said = `${damaged(dir, file)} (nothing was written: servers keep serving generation 3)`;
    await expect(IndexWriter.open(dir)).rejects.toThrow(said);
    await expect(mergeAll(dir)).rejects.toThrow(said);
  });

  it('fails a reload with the same words, and the served generation stays', async () => {
    const dir = await twoSegments();
    const index = await LiveIndex.open(dir, options);
    cleanups.unshift(() => index.close());
    const writer = await IndexWriter.open(dir);
    writer.delete('a');
    await writer.commit();
    await rm(path.join(dir, 'seg-000002000.seg'));

    const failure = await index.reload().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GenerationLoadError);
    expect((failure as Error).message).toBe(damaged(dir, 'seg-000002000.seg'));
    expect(index.current.generation).toBe(3);
    expect(await index.read(({ searcher }) => searcher.statistics().articles)).toBe(3);
  });
});
