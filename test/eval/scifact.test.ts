/**
 * Quality guard on a real benchmark: BM25 with the default settings on the
 * SciFact train judgements must stay at or above the published BM25 figure
 * (nDCG@10 0.665, BEIR, test split). Skipped when ../shared is absent.
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ingest } from '../../src/corpus/ingest.js';
import { evaluate } from '../../src/eval/evaluate.js';
import { loadConfig } from '../../src/config.js';
import { tempDir } from '../search/helpers.js';

const SCIFACT = path.resolve('..', 'shared', 'data', 'scifact');
const present = existsSync(path.join(SCIFACT, 'corpus.jsonl'));
if (!present) console.warn(`skipping SciFact quality test: ${SCIFACT} not found`);

describe.skipIf(!present)('SciFact retrieval quality', () => {
  it('reaches the published BM25 nDCG@10 with the default parameters', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const report = await ingest({ inputs: [path.join(SCIFACT, 'corpus.jsonl')], indexDir: dir });
      expect(report.indexed).toBe(5183);
      const config = loadConfig([], {});
      const result = await evaluate(dir, path.join(SCIFACT, 'queries.jsonl'), path.join(SCIFACT, 'qrels', 'train.tsv'), {
        k1: config.bm25K1,
        b: config.bm25B,
        titleWeight: config.titleWeight,
        threads: 0,
        filterCacheSize: 4,
      });
      expect(result.queries).toBe(809);
      expect(result.ndcg10).toBeGreaterThanOrEqual(0.665);
      expect(result.recall100).toBeGreaterThanOrEqual(0.9);
    } finally {
      await cleanup();
    }
  }, 120_000);
});
