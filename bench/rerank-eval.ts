/**
 * Does the reranker trained by `npm run models:reranker` help? On SciFact,
 * with the TRAIN judgements only (the test split stays held back): index the
 * corpus, train the reranker on that index with its default options, load it
 * through the service's loadOnnxReranker, then compare nDCG@10, Recall@100 and
 * MRR@10 of
 *   - BM25 alone (the service's default parameters),
 *   - BM25 top 100 reranked by the model (all 100 scored, ranked by score, as
 *     the QA pipeline ranks them),
 *   - a BM25 + cosine interpolation, reported only: the pipeline ranks by the
 *     reranker's score alone. Its weight is chosen on one half of the train
 *     queries ("tune") and measured on the other ("held out").
 * The trainer itself reads no judgement. The result decides whether the
 * service should rerank by default; the verdict is written with the numbers.
 *
 *   npm run bench:rerank
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { ingest } from '../src/corpus/ingest.js';
import { Library } from '../src/corpus/library.js';
import { evaluate, readQueries, type EvaluationHooks, type EvaluationResult } from '../src/eval/evaluate.js';
import { parseQrels } from '../src/eval/metrics.js';
import { loadOnnxReranker } from '../src/rerank/index.js';
import type { ParagraphHit, SearcherOptions } from '../src/search/searcher.js';
import { DEFAULT_TRAIN_OPTIONS, trainReranker } from '../scripts/train-reranker.js';
import { machine, writeResults } from './lib/stats.js';
import { SCIFACT_DIR } from './lib/synthetic-corpus.js';

const CORPUS = path.join(SCIFACT_DIR, 'corpus.jsonl');
const QUERIES = path.join(SCIFACT_DIR, 'queries.jsonl');
const QRELS = path.join(SCIFACT_DIR, 'qrels', 'train.tsv');
// 0 is BM25 alone: the sweep may well conclude that the cosine is best left out.
const WEIGHTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
const say = (message: string) => process.stderr.write(`bench:rerank: ${message}\n`);

type Rerank = NonNullable<EvaluationHooks['rerank']>;

/** Judged train queries in id order, alternately assigned to the tune and held-out halves. */
async function splitQueries(): Promise<{ tune: Set<string>; heldOut: Set<string> }> {
  const queries = await readQueries(QUERIES);
  const judged = [...parseQrels(await readFile(QRELS, 'utf8')).keys()].filter((id) => queries.has(id)).sort((a, b) => Number(a) - Number(b));
  return {
    tune: new Set(judged.filter((_, i) => i % 2 === 0)),
    heldOut: new Set(judged.filter((_, i) => i % 2 === 1)),
  };
}

async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(path.join(dir, name))).size;
  return total;
}

async function main() {
  if (![CORPUS, QUERIES, QRELS].every((file) => existsSync(file))) {
    process.stderr.write(`SciFact (corpus.jsonl, queries.jsonl, qrels/train.tsv) not found under ${SCIFACT_DIR}; nothing to evaluate on.\n`);
    process.exit(1);
  }
  const scratch = await mkdtemp(path.join(tmpdir(), 'litserve-rerank-eval-'));
  const indexDir = path.join(scratch, 'index');
  const modelDir = path.join(scratch, 'reranker');
  const defaults = loadConfig([], {});
  const searcherOptions: SearcherOptions = { k1: defaults.bm25K1, b: defaults.bm25B, titleWeight: defaults.titleWeight, threads: 0, filterCacheSize: 4 };
  try {
    await ingest({ inputs: [CORPUS], indexDir, format: 'beir' });
    let started = performance.now();
    const model = await trainReranker(indexDir, modelDir, { ...DEFAULT_TRAIN_OPTIONS, onProgress: (line) => say(`train: ${line}`) });
    const trainSeconds = (performance.now() - started) / 1000;
    const modelBytes = await directorySize(modelDir);
    const reranker = await loadOnnxReranker(modelDir, { threads: 1, batchSize: 32 });

    // Each query's cosine scores, computed once (the BM25 top 100 is the same in every run).
    const cosines = new Map<string, number[]>();
    let scoredPairs = 0;
    let scoringMs = 0;
    const cosinesOf = async (query: string, hits: ParagraphHit[], library: Library) => {
      let scores = cosines.get(query);
      if (!scores) {
        const begin = performance.now();
        scores = await reranker.score(query, hits.map((hit) => library.paragraphText(hit)));
        scoringMs += performance.now() - begin;
        scoredPairs += hits.length;
        cosines.set(query, scores);
      }
      return scores;
    };
    const ranked = (hits: ParagraphHit[], keys: number[]) =>
      hits.map((hit, i) => ({ hit, key: keys[i]!, i })).sort((a, b) => b.key - a.key || a.i - b.i).map((x) => x.hit);
    const rerank: Rerank = async (query, hits, searcher) => ranked(hits, await cosinesOf(query, hits, new Library(searcher)));
    const interpolate = (weight: number): Rerank => async (query, hits, searcher) => {
      const cos = await cosinesOf(query, hits, new Library(searcher));
      const top = hits[0]?.score || 1;
      return ranked(hits, hits.map((hit, i) => (1 - weight) * (hit.score / top) + weight * cos[i]!));
    };

    const { tune, heldOut } = await splitQueries();
    const run = (hooks: EvaluationHooks) => evaluate(indexDir, QUERIES, QRELS, searcherOptions, hooks);
    const inHalf = (half: Set<string>) => (id: string) => half.has(id);
    const bm25All = await run({});
    started = performance.now();
    const rerankAll = await run({ rerank });
    say(`reranked ${rerankAll.queries} queries in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const bm25Held = await run({ includeQuery: inHalf(heldOut) });
    const rerankHeld = await run({ includeQuery: inHalf(heldOut), rerank });
    const sweep: { weight: number; tune: EvaluationResult }[] = [];
    for (const weight of WEIGHTS) sweep.push({ weight, tune: await run({ includeQuery: inHalf(tune), rerank: interpolate(weight) }) });
    const best = sweep.reduce((x, y) => (y.tune.ndcg10 > x.tune.ndcg10 ? y : x));
    const interpolatedHeld = await run({ includeQuery: inHalf(heldOut), rerank: interpolate(best.weight) });
    const bm25Tune = await run({ includeQuery: inHalf(tune) });
    await reranker.close();

    const rerankHelps = rerankHeld.ndcg10 > bm25Held.ndcg10;
    const pairsPerSecond = scoredPairs / (scoringMs / 1000);
    const row = (name: string, r: EvaluationResult) =>
      `| ${name} | ${r.queries} | ${r.ndcg10.toFixed(4)} | ${r.recall100.toFixed(4)} | ${r.mrr10.toFixed(4)} |`;
    const lines = [
      '# Reranking SciFact with the trained reranker (`npm run bench:rerank`)',
      '',
      `${new Date().toISOString()}. SciFact corpus (${model.indexParagraphs} abstracts), TRAIN judgements only; ` +
        `BM25 with the service defaults (k1 ${searcherOptions.k1}, b ${searcherOptions.b}, title weight ${searcherOptions.titleWeight}).`,
      '',
      '## Verdict',
      '',
      rerankHelps
        ? `Reranking with the trained model helps: nDCG@10 ${bm25Held.ndcg10.toFixed(4)} -> ${rerankHeld.ndcg10.toFixed(4)} on the held-out train queries.`
        : `**Reranking with the trained model does not help: it lowers nDCG@10 from ${bm25Held.ndcg10.toFixed(4)} (BM25) to ` +
          `${rerankHeld.ndcg10.toFixed(4)} on the held-out train queries** (${bm25All.ndcg10.toFixed(4)} -> ${rerankAll.ndcg10.toFixed(4)} on all of them). ` +
          'The service therefore configures no reranker model by default, and `use_reranker` has no effect until one is configured ' +
          '(`--reranker-model DIR`, e.g. a downloaded cross-encoder).',
      '',
      'Interpolating, (1 - w) x BM25 / top BM25 + w x cosine: ' +
        (best.weight === 0
          ? 'no weight w > 0 does better than BM25 alone (w = 0) on the tune half, so the cosine is best left out. '
          : `w = ${best.weight} is best on the tune half and gives nDCG@10 ${interpolatedHeld.ndcg10.toFixed(4)} on the held-out half ` +
            `(BM25: ${bm25Held.ndcg10.toFixed(4)}). `) +
        'The QA pipeline ranks by the reranker\'s score alone, so this is reported only.',
      '',
      '## Model',
      '',
      `\`npm run models:reranker\` defaults: LSA word vectors (randomised truncated SVD of the TF-IDF stem x paragraph matrix), ` +
        `${model.vocab.length} tokens x ${model.dim} dimensions, ${(modelBytes / 1048576).toFixed(1)} MiB on disk ` +
        `(model.onnx, tokenizer.json, config.json), trained in ${trainSeconds.toFixed(1)} s from ${model.paragraphs} paragraphs ` +
        `(${model.stems} stems). No judgement is used in training. Scoring: ${Math.round(pairsPerSecond)} (question, paragraph) pairs/s ` +
        '(1 intra-op thread, batches of 32, tokenisation included).',
      '',
      '## Results',
      '',
      'Train queries are split by id order: even positions form the tune half, odd positions the held-out half. The trainer\'s defaults ' +
        '(its width, for one) and the interpolation weight were chosen looking at the tune half only; the held-out rows are the measurement.',
      '',
      '| ranking | queries | nDCG@10 | Recall@100 | MRR@10 |',
      '| --- | --- | --- | --- | --- |',
      row('BM25, held-out half', bm25Held),
      row('BM25 top 100 reranked, held-out half', rerankHeld),
      row(`interpolation w = ${best.weight}, held-out half`, interpolatedHeld),
      row('BM25, all train queries', bm25All),
      row('BM25 top 100 reranked, all train queries', rerankAll),
      '',
      'Recall@100 is the same for BM25 and its reranked top 100: reranking reorders the 100 paragraphs, it adds none.',
      '',
      `Interpolation weights on the tune half (BM25 alone: nDCG@10 ${bm25Tune.ndcg10.toFixed(4)}):`,
      '',
      '| w | nDCG@10 | MRR@10 |',
      '| --- | --- | --- |',
      ...sweep.map((s) => `| ${s.weight} | ${s.tune.ndcg10.toFixed(4)} | ${s.tune.mrr10.toFixed(4)} |`),
      '',
    ];
    const json = {
      machine: machine(),
      model: { tokens: model.vocab.length, dim: model.dim, bytes: modelBytes, trainSeconds, paragraphs: model.paragraphs, stems: model.stems, options: DEFAULT_TRAIN_OPTIONS },
      pairsPerSecond,
      rerankHelps,
      heldOut: { bm25: bm25Held, reranked: rerankHeld, interpolated: { weight: best.weight, ...interpolatedHeld } },
      all: { bm25: bm25All, reranked: rerankAll },
      tune: { bm25: bm25Tune, sweep },
    };
    await writeResults('reranker', json, lines.join('\n'));
    process.stdout.write(lines.slice(4, 9).join('\n') + '\n');
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

await main();
