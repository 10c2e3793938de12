/**
 * `npm run eval`: indexes a BEIR corpus (or uses an existing index), runs the
 * judged queries and prints nDCG@10, Recall@100, MRR@10 and queries/second.
 */
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { Searcher, type ParagraphHit, type SearcherOptions } from '../search/searcher.js';
import { compileFilterSpec } from '../search/query/filter-spec.js';
import { mrrAt, ndcgAt, parseQrels, recallAt, type OnBadLine } from './metrics.js';

export interface EvaluationResult {
  queries: number;
  ndcg10: number;
  recall100: number;
  mrr10: number;
  queriesPerSecond: number;
  /** Lines of the queries and qrels files left out (each told to `onSkip`), and the first of each file. */
  skippedLines: { queries: number; qrels: number };
  firstSkippedLine: { queries: SkippedLine | null; qrels: SkippedLine | null };
  /** Queries read from the queries file, and queries with judgements read from the qrels file. */
  read: { queries: number; judgedQueries: number };
  /** The distinct document ids judged for the evaluated queries, and how many of them the index holds. */
  judgedDocuments: JudgedDocuments;
}

interface SkippedLine {
  line: number;
  message: string;
}

interface JudgedDocuments {
  judged: number;
  inIndex: number;
  /** A judged id the index lacks, and an id the index has, to show how they differ (null: none). */
  missingExample: string | null;
  indexExample: string | null;
}

/** BEIR queries.jsonl: `{"_id": ..., "text": ...}` per line; other non-blank lines are told to `onBadLine`. */
export async function readQueries(file: string, onBadLine: OnBadLine = () => {}): Promise<Map<string, string>> {
  const queries = new Map<string, string>();
  (await readFile(file, 'utf8')).split('\n').forEach((line, index) => {
    if (!line.trim()) return;
    const query = parseQueryLine(line);
    if ('error' in query) onBadLine(index + 1, query.error);
    else queries.set(query.id, query.text);
  });
  return queries;
}

function parseQueryLine(line: string): { id: string; text: string } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { error: `invalid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'line is not a JSON object' };
  const { _id: id, text } = value as Record<string, unknown>;
  if (!((typeof id === 'string' && id.trim() !== '') || typeof id === 'number')) return { error: '_id must be a non-empty string' };
  if (typeof text !== 'string' || text.trim() === '') return { error: `query ${id}: text must be a non-empty string` };
  return { id: String(id), text };
}

/** Optional changes to an evaluation run (for benchmarks of rerankers and held-out splits), and what it tells. */
export interface EvaluationHooks {
  /** Told of each line of the queries or qrels file left out, and why. */
  onSkip?: (source: { file: string; line: number }, message: string) => void;
  /** Runs only the judged queries it accepts (e.g. a held-out half); all of them by default. */
  includeQuery?: (queryId: string) => boolean;
  /** Reorders a query's BM25 top-100 paragraphs before they are ranked as articles (e.g. by a reranker). */
  rerank?: (query: string, hits: ParagraphHit[], searcher: Searcher) => Promise<ParagraphHit[]>;
  /** How messages name the index (default: `the index DIR`); a scratch index is gone when they are read. */
  indexName?: string;
}

/** Ranks articles for each judged query and averages the metrics over those queries. */
export async function evaluate(
  indexDir: string,
  queriesFile: string,
  qrelsFile: string,
  options: SearcherOptions,
  hooks: EvaluationHooks = {},
): Promise<EvaluationResult> {
  const skippedLines = { queries: 0, qrels: 0 };
  const firstSkippedLine: EvaluationResult['firstSkippedLine'] = { queries: null, qrels: null };
  const skipLineOf = (file: string, kind: keyof typeof skippedLines): OnBadLine => (line, message) => {
    skippedLines[kind]++;
    firstSkippedLine[kind] ??= { line, message };
    hooks.onSkip?.({ file, line }, message);
  };
  const queries = await readQueries(queriesFile, skipLineOf(queriesFile, 'queries'));
  const qrels = parseQrels(await readFile(qrelsFile, 'utf8'), skipLineOf(qrelsFile, 'qrels'));
  const searcher = await Searcher.open(indexDir, options);
  const noFilter = compileFilterSpec({});
  try {
    const evaluated = [...qrels].filter(([queryId]) => queries.has(queryId) && hooks.includeQuery?.(queryId) !== false);
    const judgedDocuments = judgedDocumentsIn(searcher, new Set(evaluated.flatMap(([, judged]) => [...judged.keys()])));
    // Every metric would be 0 and look like a bad engine, when the index is of other ids (an --id-prefix, another dataset).
    if (judgedDocuments.judged > 0 && judgedDocuments.inIndex === 0) {
      throw new Error(
        `none of the ${judgedDocuments.judged} document ids judged in ${qrelsFile} is in ${hooks.indexName ?? `the index ${indexDir}`} ${describeMismatch(judgedDocuments)}`,
      );
    }
    let ndcg = 0;
    let recall = 0;
    let mrr = 0;
    let judgedQueries = 0;
    const started = performance.now();
    for (const [queryId, judged] of evaluated) {
      const text = queries.get(queryId)!;
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
    return {
      queries: judgedQueries,
      ndcg10: ndcg / n,
      recall100: recall / n,
      mrr10: mrr / n,
      queriesPerSecond: judgedQueries / seconds,
      skippedLines,
      firstSkippedLine,
      read: { queries: queries.size, judgedQueries: qrels.size },
      judgedDocuments,
    };
  } finally {
    await searcher.close();
  }
}

function judgedDocumentsIn(searcher: Searcher, judgedIds: Set<string>): JudgedDocuments {
  const found = new Set<string>();
  let indexExample: string | null = null;
  searcher.forEachLiveArticle((articleId) => {
    indexExample ??= articleId;
    if (judgedIds.has(articleId)) found.add(articleId);
  });
  const missingExample = [...judgedIds].find((id) => !found.has(id)) ?? null;
  return { judged: judgedIds.size, inIndex: found.size, missingExample, indexExample };
}

/**
 * Why no query was evaluated, for the error line. A file of which no line could be read says so with its
 * first bad line: blaming two datasets would send users looking for the wrong cause (qrels scored `1.5`).
 */
export function whyNothingEvaluated(result: EvaluationResult, queriesFile: string, qrelsFile: string): string {
  const unread = (file: string, kind: 'queries' | 'qrels', what: string): string => {
    const first = result.firstSkippedLine[kind];
    return first === null
      ? `${file} holds no ${what}: nothing was evaluated`
      : `every line of ${file} was skipped (the first, line ${first.line}: ${first.message}): no ${what} was read, nothing was evaluated`;
  };
  if (result.read.judgedQueries === 0) return unread(qrelsFile, 'qrels', 'judgement');
  if (result.read.queries === 0) return unread(queriesFile, 'queries', 'query');
  return `no query of ${queriesFile} has a judgement in ${qrelsFile}: nothing was evaluated (check that both files are of one dataset)`;
}

/** Shows a judged id the index lacks beside one it has, so that a prefix or another dataset is seen at once. */
export function describeMismatch({ missingExample, indexExample }: JudgedDocuments): string {
  const has = indexExample === null ? 'the index has no article' : `the index has ids such as ${JSON.stringify(indexExample)}`;
  return `(e.g. ${JSON.stringify(missingExample)} is not; ${has}; was it built with --id-prefix, or from another dataset?)`;
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
