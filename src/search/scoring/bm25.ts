/**
 * BM25 with per-field weights (paragraph text and article title), Lucene's
 * non-negative idf, and quantised lengths (see segment/norms.ts).
 *
 *   score(d) = sum over query terms t and fields f of
 *              w_f * idf_f(t) * (k1 + 1) * tf / (tf + k1 * (1 - b + b * len_f(d) / avglen_f))
 */
import { NORM_LENGTHS } from '../segment/norms.js';
import type { FieldName } from '../segment/format.js';

export interface Bm25Params {
  k1: number;
  b: number;
  /** Weight of each field; the text field is 1 by convention. */
  fieldWeights: Record<FieldName, number>;
}

/** Corpus-wide statistics; every segment and worker scores with the same numbers. */
export interface CollectionStats {
  documents: number;
  averageLength: Record<FieldName, number>;
}

/** One scored clause of a query: a term in a field, with its precomputed weight. */
export interface ScoringClause {
  term: string;
  field: FieldName;
  /** w_f * idf * (k1 + 1). */
  weight: number;
}

export function idf(documents: number, docFreq: number): number {
  return Math.log(1 + (documents - docFreq + 0.5) / (docFreq + 0.5));
}

/** lengthFactor[norm] = k1 * (1 - b + b * len / avglen): the denominator addend for each norm byte. */
export function lengthFactors(params: Bm25Params, averageLength: number): Float64Array {
  const table = new Float64Array(256);
  const avg = averageLength > 0 ? averageLength : 1;
  for (let i = 0; i < 256; i++) table[i] = params.k1 * (1 - params.b + (params.b * NORM_LENGTHS[i]!) / avg);
  return table;
}

export function termScore(weight: number, freq: number, lengthFactor: number): number {
  return (weight * freq) / (freq + lengthFactor);
}
