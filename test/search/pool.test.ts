/**
 * SearchPool directly: the same top k on the calling thread, on one worker
 * per query, and split into shares across workers, equal to a full sort of
 * every document's exhaustive score; filters and segment bases honoured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { SearchPool, segmentBases } from '../../src/search/pool.js';
import { SegmentBuilder } from '../../src/search/segment/writer.js';
import { Segment } from '../../src/search/segment/reader.js';
import { Bitset } from '../../src/search/filters/bitset.js';
import { Bm25, type Bm25Params, type ScoringClause } from '../../src/search/scoring/bm25.js';
import { scoreEach } from '../../src/search/scoring/exhaustive.js';
import { collectionStats } from '../../src/search/snapshot.js';
import { FIELDS } from '../../src/search/segment/format.js';
import { random } from '../../scripts/lib/random.js';
import { article, tempDir } from './helpers.js';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa'];
const PARAMS: Bm25Params = { k1: 1.2, b: 0.75, fieldWeights: { text: 1, title: 0.5 } };
const QUERIES = [['alpha'], ['beta', 'gamma'], ['delta', 'alpha', 'kappa'], ['absent'], ['zeta', 'zeta']];

describe('SearchPool', () => {
  const segments: Segment[] = [];
  let dir: { dir: string; cleanup: () => Promise<void> };
  const bm25 = new Bm25(PARAMS);

  beforeAll(async () => {
    dir = await tempDir();
    const next = random(7);
    const words = () => Array.from({ length: 1 + Math.floor(next() * 15) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
    for (const [s, size] of [60, 1, 140].entries()) {
      const builder = new SegmentBuilder();
      for (let i = 0; i < size; i++) builder.addArticle(article(`s${s}a${i}`, Array.from({ length: 1 + (i % 3) }, words), { title: words() }));
      const file = path.join(dir.dir, `${s}.seg`);
      await builder.write(file);
      segments.push(await Segment.load(file));
    }
  });
  afterAll(() => dir.cleanup());

  const stats = () => collectionStats(segments);

  function clausesOf(terms: string[]): ScoringClause[] {
    const { documents } = stats();
    return terms.flatMap((term) =>
      FIELDS.map((field) => {
        const df = segments.reduce((sum, s) => sum + (s.termOrdinal(term) >= 0 ? s.fields[field].df[s.termOrdinal(term)]! : 0), 0);
        return { term, field, weight: bm25.clauseWeight(field, documents, df) };
      }),
    );
  }

  /** Every matching document's score by the exhaustive scorer, best first, ties to the lower ordinal. */
  function bruteForce(clauses: ScoringClause[], k: number, accept: (Bitset | null)[]): { doc: number; score: number }[] {
    const bases = segmentBases(segments);
    const all: { doc: number; score: number }[] = [];
    segments.forEach((segment, s) => {
      const docs = accept[s]?.clone() ?? Bitset.full(segment.paragraphCount);
      scoreEach(segment, clauses, bm25, stats(), docs, (doc, score) => score > 0 && all.push({ doc: bases[s]! + doc, score }));
    });
    return all.sort((a, b) => b.score - a.score || a.doc - b.doc).slice(0, k);
  }

  const listed = ({ docs, scores }: { docs: Int32Array; scores: Float64Array }) => Array.from(docs, (doc, i) => ({ doc, score: scores[i]! }));

  it('numbers documents globally: each segment starts where the previous ends', () => {
    expect(segmentBases(segments)).toEqual([0, segments[0]!.paragraphCount, segments[0]!.paragraphCount + segments[1]!.paragraphCount]);
  });

  it('gives the exhaustive top k inline, on one worker, and split across workers', async () => {
    const pools = [new SearchPool(segments, 0), new SearchPool(segments, 2, { minRange: Number.MAX_SAFE_INTEGER }), new SearchPool(segments, 2, { minRange: 20 })];
    try {
      await Promise.all(pools.map((pool) => pool.warm()));
      for (const terms of QUERIES) {
        for (const k of [1, 10, 1000]) {
          const clauses = clausesOf(terms);
          const want = bruteForce(clauses, k, segments.map(() => null));
          for (const [index, pool] of pools.entries()) {
            const got = listed(await pool.topK(clauses, PARAMS, stats(), k, segments.map(() => null)));
            expect(got, `pool ${index}, ${terms.join(' ')}, k ${k}`).toEqual(want);
          }
        }
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });

  it('scores only the documents a segment filter accepts (null accepts all)', async () => {
    const next = random(11);
    const accept = segments.map((segment, s) => {
      if (s === 1) return null;
      const bits = new Bitset(segment.paragraphCount);
      for (let doc = 0; doc < segment.paragraphCount; doc++) if (next() < 0.3) bits.add(doc);
      return bits;
    });
    const pools = [new SearchPool(segments, 0), new SearchPool(segments, 2, { minRange: 20 })];
    try {
      const clauses = clausesOf(['alpha', 'beta']);
      const want = bruteForce(clauses, 50, accept);
      expect(want.length).toBeGreaterThan(5);
      for (const pool of pools) expect(listed(await pool.topK(clauses, PARAMS, stats(), 50, accept))).toEqual(want);
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });

  it('with inlineWhenAlone, runs a lone query on the calling thread and queries asked together on the workers', async () => {
    const alone = new SearchPool(segments, 2, { inlineWhenAlone: true });
    const always = new SearchPool(segments, 2);
    try {
      await Promise.all([alone.warm(), always.warm()]);
      const clauses = clausesOf(['beta', 'gamma']);
      const want = bruteForce(clauses, 10, segments.map(() => null));
      const ask = (pool: SearchPool) => pool.topK(clauses, PARAMS, stats(), 10, segments.map(() => null)).then(listed);

      let before = alone.pooledTasks;
      expect(await ask(alone)).toEqual(want);
      expect(alone.pooledTasks - before, 'a lone query stays on the calling thread').toBe(0);

      before = alone.pooledTasks;
      const together = await Promise.all([ask(alone), ask(alone), ask(alone)]);
      for (const got of together) expect(got).toEqual(want);
      expect(alone.pooledTasks - before, 'queries asked in the same turn go to the workers').toBe(3);

      before = always.pooledTasks;
      expect(await ask(always)).toEqual(want);
      expect(always.pooledTasks - before, 'without the setting, a lone query goes to a worker').toBe(1);
    } finally {
      await Promise.all([alone.close(), always.close()]);
    }
  });
});
