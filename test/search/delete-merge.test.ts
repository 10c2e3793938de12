/**
 * Deletions and merging at the engine level: a deleted article is gone from
 * every read path and comes back when ingested again; a merge keeps rankings
 * identical (nothing deleted), leaves fewer segments and drops deleted
 * articles, after which the collection statistics are those of an index built
 * from the surviving articles alone; the tiered policy merges only adjacent
 * segments of one size tier.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { IndexWriter } from '../../src/search/index-writer.js';
import { readManifest, type SegmentEntry } from '../../src/search/manifest.js';
import { mergeAll, mergeByPolicy, tiered } from '../../src/search/merge.js';
import { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { Library } from '../../src/corpus/library.js';
import { article, randomArticles, tempDir, writeIndex } from './helpers.js';
import type { ArticleInput } from '../../src/corpus/model.js';
import { storedFile } from '../../src/search/manifest.js';
import { StoredFields } from '../../src/search/stored/reader.js';
import { edgeCaseCorpus } from './stored-corpus.js';

const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 };
const all = compileFilterSpec({});
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
async function dir() {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  return dir;
}


/** Everything a user can observe of a ranking: ids, paragraphs and scores, in order. */
async function rankings(indexDir: string, queries: string[]) {
  const searcher = await Searcher.open(indexDir, options);
  const library = new Library(searcher);
  try {
    const out: unknown[] = [];
    for (const query of queries) {
      const hits = await searcher.search(query, 50, all);
      out.push(hits.map((hit) => [library.contextMetadata(hit, 0, null).paragraph_id, hit.score]));
      out.push((await searcher.listArticles(compileFilterSpec({ topics: [query.split(' ')[0]!] }), 30, false)).map((hit) => library.articleMetadata(hit).article_id));
    }
    out.push(searcher.countArticles(all), searcher.suggestions.articleTypes(), searcher.suggestions.suggestAuthors('author', 10));
    return out;
  } finally {
    await searcher.close();
  }
}

const QUERIES = ['neuron synapse', 'dopamine reward', 'grid place theta', 'axon', 'glia cortex spike'];

/** Every live article as the routes send it: its listing item and its paragraphs' fragments, in index order. */
async function servedArticles(indexDir: string): Promise<string[]> {
  const searcher = await Searcher.open(indexDir, options);
  const library = new Library(searcher);
  try {
    const dump: string[] = [];
    for (const item of await searcher.listArticles(all, 1000, false)) {
      const { segment, stored } = searcher.snapshot.segments[item.segment]!;
      const paragraphs = [];
      for (let p = segment.articleFirstParagraph[item.article]!; p < segment.articleFirstParagraph[item.article + 1]!; p++) paragraphs.push(stored.paragraphJson(p));
      const listing = await library.listingJson({ items: [item], total: 1, page: 1, size: 1, pages: 1 });
      dump.push([listing.toString('utf8'), ...paragraphs].join('\n'));
    }
    return dump;
  } finally {
    await searcher.close();
  }
}

async function ingestInRounds(indexDir: string, articles: ArticleInput[], rounds: number): Promise<void> {
  const size = Math.ceil(articles.length / rounds);
  for (let r = 0; r < rounds; r++) await writeIndex(indexDir, articles.slice(r * size, (r + 1) * size), 4096);
}

describe('deletions', () => {
  it('hides a deleted article from search, counts, listings, suggestions and lookups; re-ingesting brings it back', async () => {
    const indexDir = await dir();
    await writeIndex(indexDir, [
      article('keep', ['dopamine neurons'], { authors: ['Kept Author'] }),
      article('gone', ['dopamine reward'], { authors: ['Gone Author'], article_type: 'editorial' }),
    ]);
    const writer = await IndexWriter.open(indexDir);
    expect(writer.delete('gone')).toBe(true);
    expect(writer.delete('gone')).toBe(false);
    expect(writer.delete('never-there')).toBe(false);
    expect(await writer.commit()).toMatchObject({ deleted: 1, replaced: 0, added: 0 });

    const searcher = await Searcher.open(indexDir, options);
    const library = new Library(searcher);
    expect((await searcher.search('dopamine', 10, all)).map((hit) => searcher.articleIdOf(hit))).toEqual(['keep']);
    expect(searcher.countArticles(all)).toBe(1);
    expect(searcher.countArticles(compileFilterSpec({ topics: ['reward'] }))).toBe(0);
    expect((await searcher.listArticles(all, 10, true)).map((hit) => library.articleMetadata(hit).article_id)).toEqual(['keep']);
    expect(searcher.suggestions.articleTypes()).toEqual([{ article_type: 'research-article', docs_in_db: 1 }]);
    expect(searcher.suggestions.suggestAuthors('gone', 10)).toEqual([]);
    expect(library.getArticle('gone')).toBeNull();
    expect(library.listArticleIds(0, 10)).toEqual(['keep']);
    await searcher.close();

    await writeIndex(indexDir, [article('gone', ['dopamine is back'])]);
    const again = await Searcher.open(indexDir, options);
    expect((await again.search('back', 10, all)).map((hit) => again.articleIdOf(hit))).toEqual(['gone']);
    expect(again.countArticles(all)).toBe(2);
    await again.close();
  });

  it('deletes an article added earlier in the same run, before and after its segment is flushed', async () => {
    const indexDir = await dir();
    const writer = await IndexWriter.open(indexDir, { maxSegmentBytes: 200 });
    for (let i = 0; i < 20; i++) await writer.add(article(`x${i}`, [`neuron number${i}`]));
    expect(writer.delete('x0')).toBe(true); // in a flushed segment
    expect(writer.delete('x19')).toBe(true); // in the segment being built
    await writer.commit();
    const searcher = await Searcher.open(indexDir, options);
    expect(searcher.countArticles(all)).toBe(18);
    expect(await searcher.search('number0 number19', 10, all)).toEqual([]);
    await searcher.close();
  });
});

describe('merging', () => {
  it('keeps every ranking identical when nothing is deleted, with one segment instead of many', async () => {
    const indexDir = await dir();
    await ingestInRounds(indexDir, randomArticles(400, 7), 4);
    const before = await readManifest(indexDir);
    expect(before.segments.length).toBeGreaterThan(4);
    const expected = await rankings(indexDir, QUERIES);

    const merge = await mergeAll(indexDir);
    expect(merge).toMatchObject({ articles: 400, dropped: 0, generation: before.generation + 1 });
    const after = await readManifest(indexDir);
    expect(after.segments).toHaveLength(1);
    expect(await rankings(indexDir, QUERIES)).toEqual(expected);
    // The old segment files are gone from the directory.
    expect((await readdir(indexDir)).filter((file) => file.endsWith('.seg'))).toEqual([`${after.segments[0]!.name}.seg`]);
    expect(await mergeAll(indexDir)).toBeNull();
  });

  it('keeps every ISSN and every type of an article through a merge (they live in filter columns, not in stored fields)', async () => {
    const indexDir = await dir();
    const typed = article('t1', ['grid cells in the entorhinal cortex'], {
      journal_issn: '1532-1827',
      journal_issns: ['1532-1827', '0007-0920'],
      journal_name: 'British Journal of Cancer',
      article_type: 'journal-article',
      article_types: ['journal-article', 'randomized-controlled-trial'],
    });
    await ingestInRounds(indexDir, [typed, ...randomArticles(20, 3)], 2);
    const count = async () => {
      const searcher = await Searcher.open(indexDir, options);
      try {
        return [
          searcher.countArticles(compileFilterSpec({ journals: ['0007-0920'] })),
          searcher.countArticles(compileFilterSpec({ article_types: ['randomized-controlled-trial'] })),
        ];
      } finally {
        await searcher.close();
      }
    };
    expect(await count()).toEqual([1, 1]);
    expect(await mergeAll(indexDir)).not.toBeNull();
    expect(await count()).toEqual([1, 1]);
  });

  it('drops deleted and replaced articles; the statistics are then those of an index of the survivors', async () => {
    const indexDir = await dir();
    const articles = randomArticles(300, 11);
    await ingestInRounds(indexDir, articles, 3);
    const replacements = randomArticles(30, 12).map((a, i) => ({ ...a, article_id: `a${i * 3}` }));
    await writeIndex(indexDir, replacements);
    const writer = await IndexWriter.open(indexDir);
    const deletedIds = articles.filter((_, i) => i % 7 === 1).map((a) => a.article_id);
    for (const id of deletedIds) writer.delete(id);
    await writer.commit();

    // (Small segments whose every article went are dropped at commit already; the rest carry deletion bitsets.)
    const deletedBefore = (await readManifest(indexDir)).segments.reduce((sum, s) => sum + s.deletedArticles, 0);
    expect(deletedBefore).toBeGreaterThan(30);
    const merge = await mergeAll(indexDir);
    expect(merge!.dropped).toBe(deletedBefore);
    const manifest = await readManifest(indexDir);
    expect(manifest.segments).toMatchObject([{ deletions: null, deletedArticles: 0, articles: 300 - deletedIds.length }]);

    // The same survivors, in the same order, ingested into a fresh index.
    const replaced = new Set(replacements.map((a) => a.article_id));
    const deleted = new Set(deletedIds);
    const survivors = [...articles.filter((a) => !replaced.has(a.article_id) && !deleted.has(a.article_id)), ...replacements.filter((a) => !deleted.has(a.article_id))];
    const freshDir = await dir();
    await writeIndex(freshDir, survivors);
    expect(await rankings(indexDir, QUERIES)).toEqual(await rankings(freshDir, QUERIES));
  });

  it('rebuilds the merged segment from the stored-fields files and writes its own, in the layout asked for', async () => {
    const indexDir = await dir();
    // Strings full of escapes, non-BMP characters and lone surrogates, which the stored fragments must carry through.
    const articles = edgeCaseCorpus(90, 3);
    await ingestInRounds(indexDir, articles, 3);
    const writer = await IndexWriter.open(indexDir);
    expect(writer.delete(articles.at(-1)!.article_id)).toBe(true);
    await writer.commit();
    const expected = await servedArticles(indexDir);

    const merge = await mergeAll(indexDir, { storedCompression: 'deflate' });
    expect(merge!.dropped).toBeGreaterThan(0);
    const [merged] = (await readManifest(indexDir)).segments;
    expect((await readdir(indexDir)).filter((file) => file.endsWith('.stored'))).toEqual([`${merged!.name}.stored`]);
    const stored = StoredFields.open(storedFile(indexDir, merged!.name));
    expect(stored.header.compression).toBe('deflate');
    stored.close();
    expect(await servedArticles(indexDir)).toEqual(expected);
  });

  it('removes the segments entirely when every article was deleted', async () => {
    const indexDir = await dir();
    await writeIndex(indexDir, [article('only', ['lonely neuron'])]);
    const writer = await IndexWriter.open(indexDir);
    writer.delete('only');
    await writer.commit();
    // A segment whose every article is deleted is dropped at commit already.
    expect((await readManifest(indexDir)).segments).toEqual([]);
    expect(await mergeAll(indexDir)).toBeNull();
  });
});

describe('tiered merge policy', () => {
  const entry = (name: string, paragraphs: number, deletedArticles = 0): SegmentEntry => ({ name, paragraphs, articles: paragraphs, deletions: null, deletedArticles });

  it('merges the first run of `factor` adjacent segments of one tier, and nothing else', () => {
    const policy = tiered(3);
    expect(policy([entry('big', 100_000), entry('s1', 50), entry('s2', 900), entry('s3', 10)])).toEqual({ from: 1, to: 4 });
    expect(policy([entry('s1', 50), entry('big', 100_000), entry('s2', 900), entry('s3', 10)])).toBeNull();
    expect(policy([entry('m1', 3000), entry('m2', 4000), entry('m3', 5000), entry('s1', 10)])).toEqual({ from: 0, to: 3 });
    // Live size decides: a large segment that is mostly deleted sits with the small ones.
    expect(policy([entry('s1', 10), entry('mostly-deleted', 100_000, 99_900), entry('s2', 10)])).toEqual({ from: 0, to: 3 });
  });

  it('runs after ingestion until no tier is full, keeping rankings identical', async () => {
    const indexDir = await dir();
    const articles = randomArticles(240, 21);
    for (let r = 0; r < 8; r++) await writeIndex(indexDir, articles.slice(r * 30, (r + 1) * 30));
    expect((await readManifest(indexDir)).segments).toHaveLength(8);
    const expected = await rankings(indexDir, QUERIES);
    const merges = await mergeByPolicy(indexDir, 3);
    // Every segment is below the smallest tier's floor, merged ones too: 8 -> 6 -> 4 -> 2 segments.
    expect(merges.map((m) => m.merged.length)).toEqual([3, 3, 3]);
    expect((await readManifest(indexDir)).segments).toHaveLength(2);
    expect(await rankings(indexDir, QUERIES)).toEqual(expected);
  });
});
