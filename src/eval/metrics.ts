/**
 * Standard retrieval metrics, as trec_eval / pytrec_eval (used by BEIR) define them:
 * - nDCG@k with linear gains (gain = relevance grade), log2(rank + 1) discount,
 *   ideal ranking from all judged relevant documents;
 * - Recall@k = relevant retrieved in the top k / all relevant;
 * - MRR@k = 1 / rank of the first relevant document in the top k (0 if none).
 */
export type Qrels = Map<string, Map<string, number>>;

export function ndcgAt(k: number, ranking: readonly string[], judged: Map<string, number>): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((doc, i) => {
    const gain = judged.get(doc) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  });
  const ideal = [...judged.values()].filter((g) => g > 0).sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

export function recallAt(k: number, ranking: readonly string[], judged: Map<string, number>): number {
  const relevant = [...judged.values()].filter((g) => g > 0).length;
  if (relevant === 0) return 0;
  return ranking.slice(0, k).filter((doc) => (judged.get(doc) ?? 0) > 0).length / relevant;
}

export function mrrAt(k: number, ranking: readonly string[], judged: Map<string, number>): number {
  const rank = ranking.slice(0, k).findIndex((doc) => (judged.get(doc) ?? 0) > 0);
  return rank < 0 ? 0 : 1 / (rank + 1);
}

/** Told of each line a reader leaves out: its number (from 1) and why. */
export type OnBadLine = (line: number, message: string) => void;

/** A relevance grade: an integer, also when written as a decimal with no fraction (`1.0`, as some tools write qrels). */
const GRADE = /^-?\d+(?:\.0+)?$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)$/;

/**
 * Parses qrels: BEIR's TSV (`query-id corpus-id score`, optional header line) or TREC's
 * whitespace-separated `query-id iteration doc-id relevance`. Every other non-blank line is
 * left out and told to `onBadLine`: a dropped judgement changes every metric silently.
 */
export function parseQrels(text: string, onBadLine: OnBadLine = () => {}): Qrels {
  const qrels: Qrels = new Map();
  let firstLine = true;
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return;
    const fields = (line.includes('\t') ? line.split('\t') : line.trim().split(/\s+/)).map((field) => field.trim());
    // BEIR's `query-id corpus-id score`; a first line scored `1.5` is a bad line to tell, not a header.
    const header = firstLine && fields.length === 3 && !NUMBER.test(fields[2]!);
    firstLine = false;
    if (header) return;
    if (fields.length !== 3 && fields.length !== 4) {
      return onBadLine(index + 1, `expected 3 tab-separated columns (query-id, corpus-id, score) or TREC's 4 (query-id, iteration, doc-id, relevance), found ${fields.length}`);
    }
    const [query, doc, score] = fields.length === 3 ? fields : [fields[0], fields[2], fields[3]];
    if (!query || !doc) return onBadLine(index + 1, 'empty query or document id');
    if (!GRADE.test(score!)) return onBadLine(index + 1, `score ${JSON.stringify(score)} is not an integer`);
    if (!qrels.has(query)) qrels.set(query, new Map());
    qrels.get(query)!.set(doc, Number(score));
  });
  return qrels;
}
