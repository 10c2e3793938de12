/**
 * The postings-level merge writes the very segment a fresh build of the live
 * articles writes: byte for byte, so no deleted document's postings, norms or
 * lengths survive, no term held only by deleted documents stays in the
 * dictionary, and every statistic (document frequencies, summed lengths,
 * block bounds) is the fresh build's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { IndexWriter } from '../../src/search/index-writer.js';
import { readManifest, segmentFile, storedFile } from '../../src/search/manifest.js';
import { mergeAll } from '../../src/search/merge.js';
import { Segment } from '../../src/search/segment/reader.js';
import { random } from '../../scripts/lib/random.js';
import type { ArticleInput } from '../../src/corpus/model.js';
import { article, tempDir, writeIndex } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
async function dir() {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  return dir;
}

const WORDS = ['neuron', 'synapse', 'cortex', 'dopamine', 'hippocampus', 'glia', 'axon', 'spike', 'theta', 'grid', 'place', 'reward'];

/** Articles over a small vocabulary (postings longer than a block), a few very long paragraphs and frequencies above 255. */
function corpus(count: number, seed: number): ArticleInput[] {
  const next = random(seed);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(' ');
  return Array.from({ length: count }, (_, i) =>
    article(`a${i}`, Array.from({ length: 1 + Math.floor(next() * 3) }, () => words(i % 41 === 0 ? 400 : 3 + Math.floor(next() * 12))), {
      title: `${words(2)} only${i}`,
      authors: [`Author ${i % 7}`, `Author ${i % 3}`],
      article_type: i % 5 === 0 ? 'review-article' : 'research-article',
      journal_issn: i % 4 === 0 ? null : `0000-000${i % 4}`,
      journal_name: i % 4 === 0 ? null : `Journal ${i % 4}`,
      date: `20${10 + (i % 10)}-01-01`,
    }),
  );
}

async function onlySegment(indexDir: string): Promise<string> {
  const { segments } = await readManifest(indexDir);
  expect(segments).toHaveLength(1);
  return segments[0]!.name;
}

describe('postings-level merge', () => {
  it('writes the segment and stored fields a fresh build of the surviving articles writes', async () => {
    const indexDir = await dir();
    const articles = corpus(360, 5);
    for (let r = 0; r < 3; r++) await writeIndex(indexDir, articles.slice(r * 120, (r + 1) * 120), 8192);
    const replacements = corpus(20, 6).map((a, i) => ({ ...a, article_id: `a${i * 5}` }));
    await writeIndex(indexDir, replacements);
    const writer = await IndexWriter.open(indexDir);
    const deletedIds = articles.filter((_, i) => i % 9 === 2).map((a) => a.article_id);
    for (const id of deletedIds) writer.delete(id);
    await writer.commit();
    expect((await readManifest(indexDir)).segments.length).toBeGreaterThan(3);

    const merge = await mergeAll(indexDir);
    expect(merge!.dropped).toBeGreaterThan(deletedIds.length);
    const merged = await onlySegment(indexDir);

    const replaced = new Set(replacements.map((a) => a.article_id));
    const deleted = new Set(deletedIds);
    const survivors = [...articles.filter((a) => !replaced.has(a.article_id) && !deleted.has(a.article_id)), ...replacements.filter((a) => !deleted.has(a.article_id))];
    const freshDir = await dir();
    await writeIndex(freshDir, survivors);
    const fresh = await onlySegment(freshDir);

    // Terms held only by deleted articles (their unique title words) are gone from the dictionary.
    const segment = await Segment.load(segmentFile(indexDir, merged));
    expect(segment.termOrdinal('only353')).toBe(-1);
    expect(segment.termOrdinal('only352')).toBeGreaterThanOrEqual(0);
    expect(segment.header.articles).toBe(survivors.length);

    expect((await readFile(segmentFile(indexDir, merged))).equals(await readFile(segmentFile(freshDir, fresh)))).toBe(true);
    expect((await readFile(storedFile(indexDir, merged))).equals(await readFile(storedFile(freshDir, fresh)))).toBe(true);
  });

  it('merges segments without deletions into the segment one ingestion of them all writes', async () => {
    const indexDir = await dir();
    const articles = corpus(200, 8);
    for (let r = 0; r < 4; r++) await writeIndex(indexDir, articles.slice(r * 50, (r + 1) * 50));
    await mergeAll(indexDir);
    const freshDir = await dir();
    await writeIndex(freshDir, articles);
    expect((await readFile(segmentFile(indexDir, await onlySegment(indexDir)))).equals(await readFile(segmentFile(freshDir, await onlySegment(freshDir))))).toBe(true);
  });
});
