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

/** Parses a BEIR qrels TSV (`query-id corpus-id score`, optional header line). */
export function parseQrels(text: string): Qrels {
  const qrels: Qrels = new Map();
  for (const line of text.split(/\r?\n/)) {
    const [query, doc, score] = line.split('\t');
    if (!query || !doc || score === undefined || !/^-?\d+$/.test(score.trim())) continue;
    if (!qrels.has(query)) qrels.set(query, new Map());
    qrels.get(query)!.set(doc, Number(score));
  }
  return qrels;
}
