import { afterEach, describe, expect, it } from 'vitest';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { IndexWriter } from '../../src/search/index-writer.js';
import { readManifest } from '../../src/search/manifest.js';
import { IndexLockedError } from '../../src/search/write-lock.js';
import { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { article, tempDir, writeIndex } from './helpers.js';

const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
async function dir() {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  return dir;
}

describe('IndexWriter', () => {
  it('adds a segment per ingestion and replaces an article id seen again', async () => {
    const indexDir = await dir();
    await writeIndex(indexDir, [article('a', ['alpha neuron']), article('b', ['beta neuron'])]);
    await writeIndex(indexDir, [article('b', ['gamma synapse']), article('c', ['delta neuron'])]);
    const manifest = await readManifest(indexDir);
    expect(manifest.generation).toBe(2);
    expect(manifest.segments.map((s) => [s.articles, s.deletedArticles])).toEqual([[2, 1], [2, 0]]);

    const searcher = await Searcher.open(indexDir, options);
    const all = compileFilterSpec({});
    expect(searcher.countArticles(all)).toBe(3);
    const neuronHits = await searcher.search('neuron', 10, all);
    expect(neuronHits.map((h) => searcher.articleIdOf(h)).sort()).toEqual(['a', 'c']);
    expect((await searcher.search('beta', 10, all))).toEqual([]);
    expect((await searcher.search('gamma', 10, all)).map((h) => searcher.articleIdOf(h))).toEqual(['b']);
    await searcher.close();
  });

  it('keeps the last copy when an id repeats inside one ingestion, across segment flushes', async () => {
    const indexDir = await dir();
    const articles = Array.from({ length: 30 }, (_, i) => article(`id${i % 10}`, [`version${Math.floor(i / 10)} neuron`]));
    await writeIndex(indexDir, articles, 200);
    const searcher = await Searcher.open(indexDir, options);
    const all = compileFilterSpec({});
    expect(searcher.countArticles(all)).toBe(10);
    expect(await searcher.search('version0', 10, all)).toEqual([]);
    expect((await searcher.search('version2', 20, all)).length).toBe(10);
    await searcher.close();
  });

  it('drops a segment whose every article was replaced', async () => {
    const indexDir = await dir();
    await writeIndex(indexDir, [article('a', ['one'])]);
    await writeIndex(indexDir, [article('a', ['two'])]);
    const manifest = await readManifest(indexDir);
    expect(manifest.segments).toHaveLength(1);
    expect((await readdir(indexDir)).filter((f) => f.endsWith('.seg'))).toHaveLength(1);
  });

  it('publishes nothing until commit, and removes files left by an abandoned writer', async () => {
    const indexDir = await dir();
    await writeIndex(indexDir, [article('a', ['first'])]);
    const writer = await IndexWriter.open(indexDir, { maxSegmentBytes: 1 });
    await writer.add(article('b', ['second']));
    await writer.add(article('a', ['replaced']));
    await writer.close(); // abandoned: segment files exist but are not published
    expect((await readManifest(indexDir)).generation).toBe(1);
    const searcher = await Searcher.open(indexDir, options);
    expect(searcher.countArticles(compileFilterSpec({}))).toBe(1);
    expect((await searcher.search('first', 10, compileFilterSpec({}))).length).toBe(1);
    await searcher.close();
    await writeIndex(indexDir, [article('c', ['third'])]);
    expect((await readdir(indexDir)).filter((f) => f.endsWith('.seg'))).toHaveLength(2);
  });

  it('refuses a second writer while one holds the lock, and takes over a stale lock', async () => {
    const indexDir = await dir();
    const writer = await IndexWriter.open(indexDir);
    await expect(IndexWriter.open(indexDir)).rejects.toBeInstanceOf(IndexLockedError);
    await writer.close();
    await writeFile(path.join(indexDir, 'write.lock'), '999999999');
    const again = await IndexWriter.open(indexDir);
    await again.close();
  });
});
