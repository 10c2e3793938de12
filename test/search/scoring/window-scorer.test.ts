/**
 * The pieces of the window-at-a-time scorer on an index of several windows:
 * postings round trips (text per paragraph, title per article), exact scores,
 * filter masks and bound-based window skipping (observed through the blocks
 * the cursors decode).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pack } from 'msgpackr';
import { analyze } from '../../../src/search/analysis/analyzer.js';
import { Searcher } from '../../../src/search/searcher.js';
import { Segment } from '../../../src/search/segment/reader.js';
import { SegmentFormatError } from '../../../src/search/segment/errors.js';
import { MAGIC, PREAMBLE_BYTES } from '../../../src/search/segment/format.js';
import { NO_MORE_DOCS, PostingsCursor } from '../../../src/search/segment/postings.js';
import { Bitset } from '../../../src/search/filters/bitset.js';
import { bm25For } from '../../../src/search/scoring/bm25.js';
import { scoreEach } from '../../../src/search/scoring/exhaustive.js';
import { scoreWindows } from '../../../src/search/scoring/window-scorer.js';
import { openClauses, scratch, WINDOW } from '../../../src/search/scoring/open-clauses.js';
import { TopKCollector, type Collector } from '../../../src/search/scoring/top-k.js';
import type { ArticleInput } from '../../../src/corpus/model.js';
import { article, tempDir, writeIndex } from '../helpers.js';

const WORDS = ['neuron', 'cortex', 'synapse', 'dopamine', 'memory', 'gamma', 'theta', 'axon'];
const PARAGRAPHS_PER_ARTICLE = 3;
const ARTICLES = Math.ceil((4.5 * WINDOW) / PARAGRAPHS_PER_ARTICLE);

let random = 42;
const next = (n: number) => {
  random = (Math.imul(random, 1103515245) + 12345) >>> 0;
  return (random >>> 8) % n;
};
/**
 * "okapi" is in the titles of runs of 20 consecutive articles (one in ten), in the text of every other
 * paragraph outside them, and inside a run only in the first paragraph of its last article: a one-word
 * query's title postings drive, and most of a run's candidates miss the text. One run (articles
 * 1350-1369, paragraphs 4050-4109) straddles the end of the first window.
 */
const okapiTitle = (article: number) => article % 200 >= 150 && article % 200 < 170;
const okapiText = (paragraph: number) => {
  const article = Math.floor(paragraph / PARAGRAPHS_PER_ARTICLE);
  return okapiTitle(article) ? article % 200 === 169 && paragraph % PARAGRAPHS_PER_ARTICLE === 0 : paragraph % 2 === 0;
};

/** "zebra" (rare, repeated so it scores high) only in the first window's paragraphs. */
function paragraphText(paragraph: number): string {
  const words = Array.from({ length: 3 + next(20) }, () => WORDS[next(next(3) === 0 ? WORDS.length : 3)]!);
  if (paragraph < WINDOW && paragraph % 97 === 0) words.push('zebra', 'zebra', 'zebra');
  if (okapiText(paragraph)) words.push('okapi');
  return words.join(' ');
}

const articles: ArticleInput[] = [];
let paragraphCount = 0;
for (let a = 0; a < ARTICLES; a++) {
  const texts = Array.from({ length: PARAGRAPHS_PER_ARTICLE }, () => paragraphText(paragraphCount++));
  const title = `${WORDS[next(WORDS.length)]} ${WORDS[next(WORDS.length)]} study${okapiTitle(a) ? ' okapi' : ''}`;
  articles.push(article(`a${a}`, texts, { title }));
}

let searcher: Searcher;
let segment: Segment;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const made = await tempDir();
  cleanup = made.cleanup;
  await writeIndex(made.dir, articles);
  searcher = await Searcher.open(made.dir, { threads: 0, k1: 1.2, b: 0.75, titleWeight: 0.5, filterCacheSize: 0 });
  segment = searcher.snapshot.segments[0]!.segment;
}, 60_000);
afterAll(async () => {
  await searcher.close();
  await cleanup();
});

// One Bm25 for every call, so its length-factor tables (and the block-max ratios cached under them) persist.
const bm25 = () => bm25For(searcher.params);
const allParagraphs = () => Bitset.full(segment.paragraphCount);

function exhaustive(terms: string[], accept: Bitset | null) {
  const scores = new Map<number, number>();
  scoreEach(segment, searcher.clauses(terms), bm25(), searcher.snapshot.stats, accept ?? allParagraphs(), (doc, score) => {
    if (score > 0) scores.set(doc, score);
  });
  return scores;
}

function topK(terms: string[], k: number, accept: Bitset | null, textOnly = false) {
  const collector = new TopKCollector(k);
  const clauses = searcher.clauses(terms).filter((clause) => !textOnly || clause.field === 'text');
  const open = openClauses(segment, clauses, bm25(), searcher.snapshot.stats);
  scoreWindows(segment, open, { from: 0, to: segment.paragraphCount }, accept, collector, 0);
  const { docs, scores } = collector.take();
  return Array.from(docs, (doc, i) => ({ doc, score: scores[i]! }));
}

function expectedTopK(terms: string[], k: number, accept: Bitset | null) {
  return [...exhaustive(terms, accept)].map(([doc, score]) => ({ doc, score })).sort((a, b) => b.score - a.score || a.doc - b.doc).slice(0, k);
}

/** Documents of every block decoded while `run` runs, as [first, last] pairs. */
function decodedBlocks(run: () => void): [number, number][] {
  const ranges: [number, number][] = [];
  const original = PostingsCursor.prototype.decodeBlock;
  const spy = vi.spyOn(PostingsCursor.prototype, 'decodeBlock').mockImplementation(function (this: PostingsCursor, block: number) {
    const count = original.call(this, block);
    ranges.push([this.docs[0]!, this.docs[count - 1]!]);
    return count;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return ranges;
}

describe('segment postings (format 2)', () => {
  it('decode to the paragraphs and frequencies of the text, and to the articles of the title', () => {
    const text = segment.fields.text;
    const title = segment.fields.title;
    const paragraphTerms = articles.flatMap((a) => a.paragraphs.map((p) => analyze(p.text)));
    for (const word of [...WORDS, 'zebra']) {
      const term = analyze(word)[0]!;
      const ordinal = segment.termOrdinal(term);
      const expected = paragraphTerms.map((terms) => terms.filter((t) => t === term).length);
      const cursor = PostingsCursor.forTerm(text, ordinal);
      const got = new Array<number>(expected.length).fill(0);
      for (let doc = cursor.next(); doc !== NO_MORE_DOCS; doc = cursor.next()) got[doc] = cursor.freq;
      expect(got).toEqual(expected);

      const inTitle = articles.map((a) => analyze(a.title).filter((t) => t === term).length);
      const titleCursor = PostingsCursor.forTerm(title, ordinal);
      const gotTitle = new Array<number>(articles.length).fill(0);
      for (let doc = titleCursor.next(); doc !== NO_MORE_DOCS; doc = titleCursor.next()) gotTitle[doc] = titleCursor.freq;
      expect(gotTitle).toEqual(inTitle);
      // idf counts paragraphs: a title term counts every paragraph of its articles.
      expect(title.df[ordinal]).toBe(inTitle.filter((tf) => tf > 0).length * PARAGRAPHS_PER_ARTICLE);
    }
  });

  it('advances to the first document at or after each target, short and long jumps alike', () => {
    const ordinal = segment.termOrdinal(analyze('neuron')[0]!);
    const all: number[] = [];
    const walker = PostingsCursor.forTerm(segment.fields.text, ordinal);
    for (let doc = walker.next(); doc !== NO_MORE_DOCS; doc = walker.next()) all.push(doc);
    expect(walker.endBlock - walker.firstBlock).toBeGreaterThan(20);
    for (const stride of [1, 7, 300, 5000]) {
      const cursor = PostingsCursor.forTerm(segment.fields.text, ordinal);
      for (let target = 0; target < segment.paragraphCount + stride; target += stride) {
        expect(cursor.advance(target)).toBe(all.find((doc) => doc >= target) ?? NO_MORE_DOCS);
      }
    }
  });

  it('refuses a segment of format 1 with a message saying to re-ingest', () => {
    const header = pack({ formatVersion: 1, paragraphs: 0, articles: 0, terms: 0, fields: {}, arrays: [] });
    const bytes = Buffer.alloc(PREAMBLE_BYTES + header.length);
    bytes.write(MAGIC, 0, 'latin1');
    bytes.writeUInt32LE(header.length, 8);
    header.copy(bytes, PREAMBLE_BYTES);
    const buffer = new SharedArrayBuffer(bytes.length);
    new Uint8Array(buffer).set(bytes);
    expect(() => new Segment(buffer)).toThrow(SegmentFormatError);
    expect(() => new Segment(buffer)).toThrow(/format 1 is not supported.*re-ingest/);
  });
});

describe('window-at-a-time scoring', () => {
  it('gives every matching paragraph its exhaustive score, bit for bit, when nothing is pruned', () => {
    for (const terms of [['neuron'], ['dopamine', 'gamma'], ['theta', 'neuron', 'axon', 'zebra']]) {
      const got = new Map<number, number>();
      const collectAll: Collector = { threshold: -Infinity, collect: (doc, score) => got.set(doc, score) };
      const open = openClauses(segment, searcher.clauses(terms), bm25(), searcher.snapshot.stats);
      scoreWindows(segment, open, { from: 0, to: segment.paragraphCount }, null, collectAll, 0);
      expect(got).toEqual(exhaustive(terms, null));
    }
  });

  it('returns the exhaustive top k with pruning, with and without a filter', () => {
    const everyThird = new Bitset(segment.paragraphCount);
    for (let p = 0; p < segment.paragraphCount; p += 3) everyThird.add(p);
    for (const terms of [['neuron', 'zebra'], ['dopamine', 'memory', 'cortex'], ['gamma', 'study']]) {
      for (const k of [1, 10, 500]) {
        expect(topK(terms, k, null)).toEqual(expectedTopK(terms, k, null));
        expect(topK(terms, k, everyThird)).toEqual(expectedTopK(terms, k, everyThird));
      }
    }
  });

  it('adds cheap non-essential clauses to the sums of the touched paragraphs without a filter, with exact scores', () => {
    // Frequent words in the text of most paragraphs, rarer in titles: in most windows both text clauses
    // stay essential at these k, and their decoded postings outnumber the title postings added.
    // Every pair and triple of words: the added sums are re-summed in query order, so even their last bits agree.
    const queries = WORDS.flatMap((first, i) => WORDS.slice(i + 1).flatMap((second, j) => [[first, second], ...WORDS.slice(i + j + 2).map((third) => [first, second, third])]));
    for (const terms of queries) {
      for (const k of [10, 1000]) expect(topK(terms, k, null), `${terms.join(' ')} k=${k}`).toEqual(expectedTopK(terms, k, null));
    }
  });

  it('skips the candidates that miss a clause every top-k paragraph needs, and leaves no state to the next query', () => {
    // A one-word query at small k: the title postings drive, and only paragraphs that also hold the
    // word in their text can reach the top; runs of title-only candidates longer than 32 are skipped.
    for (const k of [1, 5, 50]) {
      for (const terms of [['okapi'], ['okapi', 'theta'], ['neuron'], ['okapi']]) {
        expect(topK(terms, k, null)).toEqual(expectedTopK(terms, k, null));
        expect(scratch.touched.every((word) => word === 0)).toBe(true);
      }
    }
  });

  it('decodes no block of a window the filter excludes', () => {
    const second = new Bitset(segment.paragraphCount);
    for (let p = WINDOW; p < 2 * WINDOW; p += 5) second.add(p);
    topK(['neuron', 'cortex'], 10, second, true); // computes the terms' block-max ratios (one pass over each list), not measured
    const ranges = decodedBlocks(() => topK(['neuron', 'cortex'], 10, second, true)); // text blocks list paragraphs
    expect(ranges.length).toBeGreaterThan(0);
    expect(ranges.filter(([first, last]) => !(first < 2 * WINDOW && last >= WINDOW))).toEqual([]);
  });

  it('skips windows whose block bounds cannot reach the k-th score', () => {
    // "zebra" lives in the first window only and outscores any paragraph without it.
    const terms = ['zebra', 'synapse'];
    topK(terms, 5, null, true); // computes the terms' block-max ratios (one pass over each list), not measured
    const ranges = decodedBlocks(() => topK(terms, 5, null, true));
    expect(topK(terms, 5, null)).toEqual(expectedTopK(terms, 5, null));
    const cursor = PostingsCursor.forTerm(segment.fields.text, segment.termOrdinal(analyze('synapse')[0]!));
    const synapseBlocks = cursor.endBlock - cursor.firstBlock;
    const beyondFirstWindow = ranges.filter(([first]) => first >= WINDOW).length;
    expect(beyondFirstWindow).toBeLessThan(synapseBlocks / 4);
  });
});
