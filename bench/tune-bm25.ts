/**
 * Chooses the BM25 defaults by measurement: indexes SciFact once, then
 * evaluates a grid of k1, b and title weights on the TRAIN judgements (the
 * test split is held back) and reports the grid and the best setting.
 *
 *   npm run bench:tune
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ingest } from '../src/corpus/ingest.js';
import { evaluate, type EvaluationResult } from '../src/eval/evaluate.js';
import { SCIFACT_DIR } from './lib/synthetic-corpus.js';
import { machine, writeResults } from './lib/stats.js';

const K1 = [0.6, 0.9, 1.2, 1.5];
const B = [0.3, 0.5, 0.75, 0.9];
const TITLE_WEIGHTS = [0, 0.25, 0.5, 0.75, 1];

async function main() {
  if (!existsSync(path.join(SCIFACT_DIR, 'corpus.jsonl'))) {
    process.stderr.write(`SciFact not found at ${SCIFACT_DIR}; nothing to tune on.\n`);
    process.exit(1);
  }
  const indexDir = await mkdtemp(path.join(tmpdir(), 'litserve-tune-'));
  try {
    await ingest({ inputs: [path.join(SCIFACT_DIR, 'corpus.jsonl')], indexDir, format: 'beir' });
    const rows: (EvaluationResult & { k1: number; b: number; titleWeight: number })[] = [];
    for (const k1 of K1) {
      for (const b of B) {
        for (const titleWeight of TITLE_WEIGHTS) {
          const result = await evaluate(
            indexDir,
            path.join(SCIFACT_DIR, 'queries.jsonl'),
            path.join(SCIFACT_DIR, 'qrels', 'train.tsv'),
            { k1, b, titleWeight, threads: 0, filterCacheSize: 4 },
          );
          rows.push({ k1, b, titleWeight, ...result });
          process.stderr.write(`k1 ${k1} b ${b} title ${titleWeight}: nDCG@10 ${result.ndcg10.toFixed(4)}\n`);
        }
      }
    }
    const best = rows.reduce((x, y) => (y.ndcg10 > x.ndcg10 ? y : x));
    const lines = [
      '# BM25 parameters chosen on SciFact train judgements',
      '',
      `${rows[0]!.queries} train queries, ${new Date().toISOString()}. Best: k1 ${best.k1}, b ${best.b}, title weight ${best.titleWeight} ` +
        `-> nDCG@10 ${best.ndcg10.toFixed(4)}, Recall@100 ${best.recall100.toFixed(4)}, MRR@10 ${best.mrr10.toFixed(4)}.`,
      '',
      '| k1 | b | title weight | nDCG@10 | Recall@100 | MRR@10 |',
      '| --- | --- | --- | --- | --- | --- |',
      ...[...rows]
        .sort((x, y) => y.ndcg10 - x.ndcg10)
        .map((r) => `| ${r.k1} | ${r.b} | ${r.titleWeight} | ${r.ndcg10.toFixed(4)} | ${r.recall100.toFixed(4)} | ${r.mrr10.toFixed(4)} |`),
      '',
    ];
    await writeResults('bm25-tuning', { machine: machine(), best, rows }, lines.join('\n'));
    process.stdout.write(lines.slice(0, 8).join('\n') + '\n');
  } finally {
    await rm(indexDir, { recursive: true, force: true });
  }
}

await main();
