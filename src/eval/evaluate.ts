/**
 * `npm run eval`: indexes a BEIR corpus (or uses an existing index), runs the
 * judged queries and prints nDCG@10, Recall@100, MRR@10 and queries/second.
 */
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { Searcher, type ParagraphHit, type SearcherOptions } from '../search/searcher.js';
import { compileFilterSpec } from '../search/query/filter-spec.js';
import { mrrAt, ndcgAt, parseQrels, recallAt } from './metrics.js';

export interface EvaluationResult {
  queries: number;
  ndcg10: number;
  recall100: number;
  mrr10: number;
  queriesPerSecond: number;
}

export async function readQueries(file: string): Promise<Map<string, string>> {
  const queries = new Map<string, string>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (!line.trim()) continue;
    const { _id, text } = JSON.parse(line) as { _id: string; text: string };
    queries.set(String(_id), text);
  }
  return queries;
}

/** Optional changes to an evaluation run, for benchmarks of rerankers and held-out splits. */
export interface EvaluationHooks {
  /** Runs only the judged queries it accepts (e.g. a held-out half); all of them by default. */
  includeQuery?: (queryId: string) => boolean;
  /** Reorders a query's BM25 top-100 paragraphs before they are ranked as articles (e.g. by a reranker). */
  rerank?: (query: string, hits: ParagraphHit[], searcher: Searcher) => Promise<ParagraphHit[]>;
}

/** Ranks articles for each judged query and averages the metrics over those queries. */
export async function evaluate(
  indexDir: string,
  queriesFile: string,
  qrelsFile: string,
  options: SearcherOptions,
  hooks: EvaluationHooks = {},
): Promise<EvaluationResult> {
  const queries = await readQueries(queriesFile);
  const qrels = parseQrels(await readFile(qrelsFile, 'utf8'));
  const searcher = await Searcher.open(indexDir, options);
  const noFilter = compileFilterSpec({});
  try {
    let ndcg = 0;
    let recall = 0;
    let mrr = 0;
    let judgedQueries = 0;
    const started = performance.now();
    for (const [queryId, judged] of qrels) {
      const text = queries.get(queryId);
      if (text === undefined || hooks.includeQuery?.(queryId) === false) continue;
      let hits = await searcher.search(text, 100, noFilter);
      if (hooks.rerank) hits = await hooks.rerank(text, hits, searcher);
      // Paragraph hits -> article ranking (first, i.e. best, paragraph of each article).
      const ranking = [...new Set(hits.map((hit) => searcher.articleIdOf(hit)))];
      ndcg += ndcgAt(10, ranking, judged);
      recall += recallAt(100, ranking, judged);
      mrr += mrrAt(10, ranking, judged);
      judgedQueries++;
    }
    const seconds = (performance.now() - started) / 1000;
    const n = Math.max(1, judgedQueries);
    return { queries: judgedQueries, ndcg10: ndcg / n, recall100: recall / n, mrr10: mrr / n, queriesPerSecond: judgedQueries / seconds };
  } finally {
    await searcher.close();
  }
}

export function formatEvaluation(result: EvaluationResult): string {
  return [
    `nDCG@10 ${result.ndcg10.toFixed(4)}`,
    `Recall@100 ${result.recall100.toFixed(4)}`,
    `MRR@10 ${result.mrr10.toFixed(4)}`,
    `queries ${result.queries}`,
    `queries/s ${result.queriesPerSecond.toFixed(1)}`,
  ].join('\n');
}
