import { describe, expect, it } from 'vitest';
import { mrrAt, ndcgAt, parseQrels, recallAt } from '../../src/eval/metrics.js';

const judged = new Map([
  ['a', 2],
  ['b', 1],
  ['z', 0],
]);

describe('retrieval metrics', () => {
  it('computes nDCG with linear gains against the ideal ranking', () => {
    expect(ndcgAt(10, ['a', 'b'], judged)).toBeCloseTo(1, 12);
    // DCG = 1/log2(2) + 2/log2(3); IDCG = 2/log2(2) + 1/log2(3)
    expect(ndcgAt(10, ['b', 'a'], judged)).toBeCloseTo((1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)), 12);
    expect(ndcgAt(1, ['x', 'a'], judged)).toBe(0);
    expect(ndcgAt(10, ['a'], new Map())).toBe(0);
  });

  it('computes recall and reciprocal rank', () => {
    expect(recallAt(100, ['x', 'b', 'z'], judged)).toBe(0.5);
    expect(mrrAt(10, ['x', 'z', 'b', 'a'], judged)).toBeCloseTo(1 / 3, 12);
    expect(mrrAt(2, ['x', 'z', 'b'], judged)).toBe(0);
  });

  it('parses BEIR qrels with a header line', () => {
    const qrels = parseQrels('query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t2\n2\td3\t0\n');
    expect([...qrels.keys()]).toEqual(['1', '2']);
    expect(qrels.get('1')).toEqual(new Map([['d1', 1], ['d2', 2]]));
  });
});
