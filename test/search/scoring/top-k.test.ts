import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TopKCollector, mergeScored } from '../../../src/search/scoring/top-k.js';

const entries = fc.array(fc.record({ doc: fc.nat(500), score: fc.constantFrom(0, 0.5, 1, 1.5, 2, 7.25) }), { maxLength: 200 });

function fullSort(list: { doc: number; score: number }[], k: number) {
  const unique = [...new Map(list.map((e) => [e.doc, e])).values()];
  return unique.sort((a, b) => b.score - a.score || a.doc - b.doc).slice(0, k);
}

describe('TopKCollector', () => {
  it('keeps the k best, ties to the lower document, equal to a full sort', () => {
    const collector = new TopKCollector();
    fc.assert(
      fc.property(entries, fc.integer({ min: 0, max: 30 }), (raw, k) => {
        const list = [...new Map(raw.map((e) => [e.doc, e])).values()];
        collector.reset(k); // reused across runs, as workers do
        for (const { doc, score } of list) collector.collect(doc, score);
        const { docs, scores } = collector.take();
        expect(Array.from(docs, (doc, i) => ({ doc, score: scores[i]! }))).toEqual(fullSort(list, k));
      }),
      { numRuns: 300 },
    );
  });

  it('reports -Infinity until full, then the k-th score, raised by a shared slot', () => {
    const shared = new Float64Array([-Infinity]);
    const collector = new TopKCollector(2, shared);
    collector.collect(1, 3);
    expect(collector.threshold).toBe(-Infinity);
    collector.collect(2, 5);
    expect(collector.threshold).toBe(3);
    expect(shared[0]).toBe(3);
    shared[0] = 4;
    expect(collector.threshold).toBe(4);
    collector.collect(3, 1);
    expect(Array.from(collector.take().docs)).toEqual([2, 1]);
  });

  it('merging per-share top lists equals a full sort of their union', () => {
    fc.assert(
      fc.property(fc.array(entries, { maxLength: 4 }), fc.integer({ min: 0, max: 30 }), (shares, k) => {
        // Shares cover disjoint documents, as the pool's document ranges do.
        const disjoint = shares.map((list, share) => list.map(({ doc, score }) => ({ doc: doc * 4 + share, score })));
        const lists = disjoint.map((list) => {
          const best = fullSort(list, k);
          return { docs: Int32Array.from(best, (e) => e.doc), scores: Float64Array.from(best, (e) => e.score) };
        });
        const merged = mergeScored(lists, k);
        expect(Array.from(merged.docs, (doc, i) => ({ doc, score: merged.scores[i]! }))).toEqual(fullSort(disjoint.flat(), k));
      }),
      { numRuns: 300 },
    );
  });

  it('merges sorted lists into the k best', () => {
    const a = { docs: Int32Array.from([4, 1]), scores: Float64Array.from([9, 2]) };
    const b = { docs: Int32Array.from([7, 0]), scores: Float64Array.from([9, 2]) };
    const merged = mergeScored([a, b], 3);
    expect(Array.from(merged.docs)).toEqual([4, 7, 0]);
    expect(Array.from(merged.scores)).toEqual([9, 9, 2]);
  });
});
