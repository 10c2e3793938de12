/**
 * Block-max ratios: weight x ratio bounds every posting's score in its block
 * (and is reached by one of them), for text (per paragraph) and title (per
 * article) lists, under two BM25 settings; a term is computed once per table.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyze } from '../../../src/search/analysis/analyzer.js';
import { Searcher } from '../../../src/search/searcher.js';
import type { Segment } from '../../../src/search/segment/reader.js';
import { PostingsCursor } from '../../../src/search/segment/postings.js';
import { Bm25, termScore } from '../../../src/search/scoring/bm25.js';
import { blockMaxRatios } from '../../../src/search/scoring/block-max.js';
import type { ArticleInput } from '../../../src/corpus/model.js';
import { article, tempDir, writeIndex } from '../helpers.js';

const WORDS = ['neuron', 'cortex', 'synapse', 'dopamine', 'memory'];
let random = 7;
const next = (n: number) => {
  random = (Math.imul(random, 1103515245) + 12345) >>> 0;
  return (random >>> 8) % n;
};
const articles: ArticleInput[] = Array.from({ length: 900 }, (_, a) =>
  article(
    `a${a}`,
    Array.from({ length: 1 + next(3) }, () => Array.from({ length: 1 + next(40) }, () => WORDS[next(next(4) === 0 ? 5 : 2)]).join(' ')),
    { title: `${WORDS[next(5)]} ${WORDS[next(5)]} study` },
  ),
);

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

describe('block-max ratios', () => {
  for (const params of [{ k1: 1.2, b: 0.75 }, { k1: 0.6, b: 0.3 }]) {
    it(`bound every posting of their block and are reached (k1 ${params.k1}, b ${params.b})`, () => {
      const bm25 = new Bm25({ ...params, fieldWeights: { text: 1, title: 0.5 } });
      let blocksChecked = 0;
      for (const fieldName of ['text', 'title'] as const) {
        const field = segment.fields[fieldName];
        const lengthFactor = bm25.lengthFactors(searcher.snapshot.stats.averageLength[fieldName]);
        for (const word of WORDS) {
          const ordinal = segment.termOrdinal(analyze(word)[0]!);
          const ratios = blockMaxRatios(field, ordinal, lengthFactor);
          const weight = 3.7;
          const cursor = PostingsCursor.forTerm(field, ordinal);
          for (let block = cursor.firstBlock; block < cursor.endBlock; block++) {
            const count = cursor.decodeBlock(block);
            let best = 0;
            for (let i = 0; i < count; i++) best = Math.max(best, termScore(weight, cursor.freqs[i]!, lengthFactor[field.norms[cursor.docs[i]!]!]!));
            const bound = weight * ratios[block]!;
            expect(bound).toBeGreaterThanOrEqual(best);
            expect(bound).toBeLessThan(best * (1 + 1e-10));
            blocksChecked++;
          }
        }
      }
      expect(blocksChecked).toBeGreaterThan(20);
    });
  }

  it('computes a term once per length-factor table', () => {
    const bm25 = new Bm25({ k1: 0.9, b: 0.5, fieldWeights: { text: 1, title: 0.5 } });
    const field = segment.fields.text;
    const lengthFactor = bm25.lengthFactors(searcher.snapshot.stats.averageLength.text);
    const ordinal = segment.termOrdinal(analyze('neuron')[0]!);
    const decode = vi.spyOn(PostingsCursor.prototype, 'decodeBlock');
    try {
      const first = blockMaxRatios(field, ordinal, lengthFactor);
      const decoded = decode.mock.calls.length;
      expect(decoded).toBe(field.blockStart[ordinal + 1]! - field.blockStart[ordinal]!);
      expect(blockMaxRatios(field, ordinal, lengthFactor)).toBe(first);
      expect(decode.mock.calls.length).toBe(decoded);
    } finally {
      decode.mockRestore();
    }
  });
});
