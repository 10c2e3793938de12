/**
 * BM25 with per-field weights (paragraph text and article title), Lucene's
 * non-negative idf, and quantised lengths (see segment/norms.ts).
 *
 *   score(d) = sum over query terms t and fields f of
 *              w_f * idf_f(t) * (k1 + 1) * tf / (tf + k1 * (1 - b + b * len_f(d) / avglen_f))
 *
 * This module is the only place the formula is written: clause weights, the
 * per-posting term score and the per-norm length factors come from one `Bm25`
 * object (block upper bounds: block-max.ts).
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

function idf(documents: number, docFreq: number): number {
  return Math.log(1 + (documents - docFreq + 0.5) / (docFreq + 0.5));
}

/** Score of one posting: the clause weight, its frequency and the length factor of its document's norm. */
export function termScore(weight: number, freq: number, lengthFactor: number): number {
  return (weight * freq) / (freq + lengthFactor);
}

/** The tf factor of a posting, tf / (tf + lengthFactor): its score is the clause weight times it (block-max bounds use it). */
export function tfFactor(freq: number, lengthFactor: number): number {
  return freq / (freq + lengthFactor);
}

export class Bm25 {
  private readonly factors = new Map<number, Float64Array>();

  constructor(readonly params: Bm25Params) {
    const { k1, b, fieldWeights } = params;
    if (!(Number.isFinite(k1) && k1 >= 0)) throw new RangeError(`BM25 k1 must be a finite number >= 0, got ${k1}`);
    if (!(Number.isFinite(b) && b >= 0 && b <= 1)) throw new RangeError(`BM25 b must be between 0 and 1, got ${b}`);
    for (const [field, weight] of Object.entries(fieldWeights)) {
      if (!(Number.isFinite(weight) && weight >= 0)) throw new RangeError(`BM25 weight of ${field} must be a finite number >= 0, got ${weight}`);
    }
  }

  /** w_f * idf * (k1 + 1) of a term in a field; 0 when the field is not scored. */
  clauseWeight(field: FieldName, documents: number, docFreq: number): number {
    return this.params.fieldWeights[field] * idf(documents, docFreq) * (this.params.k1 + 1);
  }

  /** lengthFactor[norm] = k1 * (1 - b + b * len / avglen): the denominator addend for each norm byte, cached per average. */
  lengthFactors(averageLength: number): Float64Array {
    let table = this.factors.get(averageLength);
    if (!table) {
      table = new Float64Array(256);
      const { k1, b } = this.params;
      const avg = averageLength > 0 ? averageLength : 1;
      for (let i = 0; i < 256; i++) table[i] = k1 * (1 - b + (b * NORM_LENGTHS[i]!) / avg);
      this.factors.set(averageLength, table);
    }
    return table;
  }
}

/** One Bm25 per distinct parameter set, so workers keep their length-factor tables between queries. */
const instances = new Map<string, Bm25>();

export function bm25For(params: Bm25Params): Bm25 {
  const key = `${params.k1}:${params.b}:${params.fieldWeights.text}:${params.fieldWeights.title}`;
  let instance = instances.get(key);
  if (!instance) {
    if (instances.size >= 16) instances.clear(); // parameter sweeps (bench:tune) must not grow it without bound
    instance = new Bm25(params);
    instances.set(key, instance);
  }
  return instance;
}
