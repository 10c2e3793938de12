/**
 * Dynamic pruning must not change results: on random corpora and queries,
 * the engine's top-k equals a brute-force scorer that reads the raw articles
 * and scores every paragraph, with and without filters, on one thread and
 * through the worker pool, over one or several segments.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { analyze, analyzeUnique } from '../../src/search/analysis/analyzer.js';
import { encodeNorm, NORM_LENGTHS } from '../../src/search/segment/norms.js';
import { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import type { ArticleInput } from '../../src/corpus/model.js';
import { article, tempDir, writeIndex } from './helpers.js';

const VOCABULARY = ['neuron', 'cortex', 'synapse', 'dopamine', 'memory', 'gamma', 'theta', 'axon', 'glia', 'spike'];
const TYPES = ['research-article', 'review-article', 'editorial'];
const PARAMS = { k1: 1.2, b: 0.75, titleWeight: 0.7 };

interface Doc {
  article: ArticleInput;
  text: string;
}

function bruteForce(articles: ArticleInput[], query: string, k: number, acceptType: (type: string) => boolean) {
  const docs: Doc[] = articles.flatMap((a) => a.paragraphs.map((p) => ({ article: a, text: p.text })));
  const fields = {
    text: docs.map((d) => analyze(d.text)),
    title: docs.map((d) => analyze(d.article.title)),
  };
  const n = docs.length;
  const scores = docs.map(() => 0);
  const terms = analyzeUnique(query);
  for (const term of terms) {
    for (const field of ['text', 'title'] as const) {
      const weightOfField = field === 'text' ? 1 : PARAMS.titleWeight;
      const lengths = fields[field].map((terms) => terms.length);
      const average = lengths.reduce((s, l) => s + l, 0) / n;
      const df = fields[field].filter((t) => t.includes(term)).length;
      if (df === 0) continue;
      const weight = weightOfField * Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (PARAMS.k1 + 1);
      fields[field].forEach((docTerms, d) => {
        const tf = docTerms.filter((t) => t === term).length;
        if (tf === 0) return;
        const length = NORM_LENGTHS[encodeNorm(lengths[d]!)]!;
        scores[d]! += (weight * tf) / (tf + PARAMS.k1 * (1 - PARAMS.b + (PARAMS.b * length) / average));
      });
    }
  }
  return docs
    .map((doc, d) => ({ d, score: scores[d]!, matched: terms.some((t) => fields.text[d]!.includes(t) || fields.title[d]!.includes(t)) }))
    .filter((x) => x.matched && acceptType(docs[x.d]!.article.article_type))
    .sort((a, b) => b.score - a.score || a.d - b.d)
    .slice(0, k)
    .map((x) => ({ d: x.d, score: x.score }));
}

const wordsArb = (max: number) => fc.array(fc.constantFrom(...VOCABULARY, 'the', 'of'), { minLength: 0, maxLength: max }).map((w) => w.join(' '));
const articleArb = fc.record({
  title: wordsArb(6),
  paragraphs: fc.array(fc.oneof({ weight: 5, arbitrary: wordsArb(30) }, { weight: 1, arbitrary: wordsArb(150) }), { minLength: 1, maxLength: 6 }),
  type: fc.constantFrom(...TYPES),
});
const corpusArb = fc.array(articleArb, { minLength: 1, maxLength: 80 });
const queryArb = fc.array(fc.constantFrom(...VOCABULARY, 'unknownword', 'the'), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function check(threads: number, maxSegmentBytes: number | undefined, runs: number) {
  await fc.assert(
    fc.asyncProperty(corpusArb, queryArb, fc.integer({ min: 1, max: 25 }), fc.subarray(TYPES), async (raw, query, k, types) => {
      const articles = raw.map((a, i) => article(`a${i}`, a.paragraphs, { title: a.title, article_type: a.type }));
      const { dir, cleanup } = await tempDir();
      cleanups.push(cleanup);
      await writeIndex(dir, articles, maxSegmentBytes);
      const searcher = await Searcher.open(dir, { ...PARAMS, threads, filterCacheSize: 4, minRangePerThread: 7 });
      try {
        const spec = compileFilterSpec(types.length > 0 ? { article_types: types } : {});
        const hits = await searcher.search(query, k, spec);
        // Global paragraph order = segments in order, paragraphs in order.
        const bases: number[] = [];
        let base = 0;
        for (const { segment } of searcher.snapshot.segments) {
          bases.push(base);
          base += segment.paragraphCount;
        }
        const got = hits.map((h) => ({ d: bases[h.segment]! + h.paragraph, score: h.score }));
        const expected = bruteForce(articles, query, k, (type) => types.length === 0 || types.includes(type));
        expect(got).toEqual(expected);
      } finally {
        await searcher.close();
      }
    }),
    { numRuns: runs },
  );
}

describe('MaxScore top-k equals exhaustive scoring', () => {
  it('on one thread, one segment', () => check(0, undefined, 150));
  it('on one thread, many small segments', () => check(0, 2_000, 60));
  it('through the worker pool, split into document ranges', () => check(2, 4_000, 15), 120_000);
});
