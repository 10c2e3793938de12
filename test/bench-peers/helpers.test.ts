/** Pure helpers of the peer comparison harness (bench/peers): corpus lines, filters, metrics, query sets. */
import { describe, expect, it } from 'vitest';
import { parseRowLine, rowLine } from '../../bench/peers/lib/docs.js';
import { scoreRankings } from '../../bench/peers/lib/measure.js';
import { wordQueries } from '../../bench/peers/lib/queries.js';
import { dateNumber, parseFilter } from '../../bench/peers/node/peer.js';
import { analyzeUnique } from '../../src/search/analysis/analyzer.js';

describe('corpus lines', () => {
  it('round-trip a paragraph, with tabs and line breaks in text flattened', () => {
    const row = { id: 'a:0', article: 'a', date: '2012-03-15', type: 'research-article', title: 'A\ttitle', text: 'one\ntwo\r\nthree' };
    expect(parseRowLine(rowLine(row).trimEnd())).toEqual({ ...row, title: 'A title', text: 'one two three' });
  });

  it('reject a line with missing fields', () => {
    expect(() => parseRowLine('a\tb\tc')).toThrow(/bad corpus line/);
  });
});

describe('filters', () => {
  it('parse the protocol form and dates', () => {
    expect(parseFilter('-')).toBeNull();
    expect(parseFilter('20100101:20201231:research-article')).toEqual({ from: 20100101, to: 20201231, type: 'research-article' });
    expect(dateNumber('2015-06-15')).toBe(20150615);
    expect(dateNumber('')).toBe(0);
  });
});

describe('quality of rankings', () => {
  it('averages nDCG@10 and Recall@100 over the judged queries', () => {
    const qrels = new Map([
      ['q1', new Map([['d1', 1]])],
      ['q2', new Map([['d2', 1], ['d3', 1]])],
    ]);
    const run = scoreRankings('lucene', 'split', [['d1', 'x'], ['x', 'd2']], ['q1', 'q2'], qrels);
    expect(run.queries).toBe(2);
    expect(run.recall100).toBeCloseTo((1 + 0.5) / 2);
    // q1: perfect; q2: one of two relevant at rank 2 over an ideal of ranks 1 and 2.
    const q2 = 1 / Math.log2(3) / (1 + 1 / Math.log2(3));
    expect(run.ndcg10).toBeCloseTo((1 + q2) / 2);
  });
});

describe('query sets', () => {
  it('are deterministic, with the asked number of distinct stems and no stopwords', () => {
    const a = wordQueries(20, 4, 9);
    expect(wordQueries(20, 4, 9)).toEqual(a);
    for (const query of a) {
      expect(query.split(' ')).toHaveLength(4);
      expect(analyzeUnique(query)).toHaveLength(4);
    }
  });
});
