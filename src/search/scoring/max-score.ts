/**
 * Top-k retrieval over one segment (or a document range of it) with MaxScore
 * dynamic pruning (Turtle & Flood 1995):
 *
 * Clauses are sorted by their score upper bound. The lowest ones whose bounds
 * together cannot beat the current k-th score are "non-essential": they never
 * produce candidates, they are only probed for documents an essential clause
 * found, and probing stops as soon as the remaining bounds cannot lift the
 * document over the threshold.
 *
 * Results equal exhaustive scoring exactly: pruning decisions keep a small
 * safety margin against rounding, and a kept document's score is re-summed in
 * the query's clause order, the order an exhaustive scorer adds in.
 */
import type { Segment } from '../segment/reader.js';
import { NO_MORE_DOCS, PostingsCursor } from '../segment/postings.js';
import type { Bitset } from '../filters/bitset.js';
import { lengthFactors, type Bm25Params, type CollectionStats, type ScoringClause } from './bm25.js';
import { TopK, type ScoredDoc } from './top-k.js';

/** Relative margin that keeps floating-point rounding from pruning a document that ties or wins. */
const PRUNING_MARGIN = 1e-9;

export interface DocRange {
  from: number;
  to: number;
}

export interface ClauseCursor {
  cursor: PostingsCursor;
  weight: number;
  norms: Uint8Array;
  lengthFactor: Float64Array;
  upperBound: number;
  /** Position of the clause in the query, the order scores are summed in. */
  order: number;
}

/** Opens a cursor per clause that has postings in this segment, positioned at the range start. */
export function openClauseCursors(
  segment: Segment,
  clauses: readonly ScoringClause[],
  params: Bm25Params,
  stats: CollectionStats,
  range: DocRange,
): ClauseCursor[] {
  const factorsByField = new Map<string, Float64Array>();
  const cursors: ClauseCursor[] = [];
  clauses.forEach((clause, order) => {
    const ordinal = segment.termOrdinal(clause.term);
    if (ordinal < 0) return;
    const field = segment.fields[clause.field];
    if (field.df[ordinal] === 0) return;
    let lengthFactor = factorsByField.get(clause.field);
    if (!lengthFactor) {
      lengthFactor = lengthFactors(params, stats.averageLength[clause.field]);
      factorsByField.set(clause.field, lengthFactor);
    }
    let maxTf = 0;
    let minNorm = 255;
    for (let block = field.blockStart[ordinal]!; block < field.blockStart[ordinal + 1]!; block++) {
      maxTf = Math.max(maxTf, field.blockMaxTf[block]!);
      minNorm = Math.min(minNorm, field.blockMinNorm[block]!);
    }
    const cursor = PostingsCursor.forTerm(field, ordinal, range.to);
    cursor.advance(range.from);
    const upperBound = (clause.weight * maxTf) / (maxTf + lengthFactor[minNorm]!);
    cursors.push({ cursor, weight: clause.weight, norms: field.norms, lengthFactor, upperBound, order });
  });
  return cursors;
}

function contribution(c: ClauseCursor, doc: number): number {
  const freq = c.cursor.freq;
  return (c.weight * freq) / (freq + c.lengthFactor[c.norms[doc]!]!);
}

export function topKMaxScore(
  segment: Segment,
  clauses: readonly ScoringClause[],
  params: Bm25Params,
  stats: CollectionStats,
  k: number,
  range: DocRange,
  accept: Bitset | null,
): ScoredDoc[] {
  const cursors = openClauseCursors(segment, clauses, params, stats, range).sort((a, b) => a.upperBound - b.upperBound);
  const n = cursors.length;
  if (n === 0 || k <= 0) return [];
  // boundBelow[i] = sum of the upper bounds of cursors 0..i-1.
  const boundBelow = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) boundBelow[i + 1] = boundBelow[i]! + cursors[i]!.upperBound;
  const contributions = new Float64Array(clauses.length);
  const top = new TopK(k);
  let threshold = -Infinity;
  let firstEssential = 0;

  for (;;) {
    let candidate = NO_MORE_DOCS;
    for (let i = firstEssential; i < n; i++) candidate = Math.min(candidate, cursors[i]!.cursor.doc);
    if (candidate === NO_MORE_DOCS) break;

    if (accept !== null && !accept.has(candidate)) {
      for (let i = firstEssential; i < n; i++) if (cursors[i]!.cursor.doc === candidate) cursors[i]!.cursor.next();
      continue;
    }

    let partial = 0;
    contributions.fill(0);
    for (let i = firstEssential; i < n; i++) {
      const c = cursors[i]!;
      if (c.cursor.doc !== candidate) continue;
      const value = contribution(c, candidate);
      contributions[c.order] = value;
      partial += value;
      c.cursor.next();
    }
    let pruned = false;
    const margin = PRUNING_MARGIN * Math.abs(threshold);
    for (let i = firstEssential - 1; i >= 0; i--) {
      if (partial + boundBelow[i + 1]! < threshold - margin) {
        pruned = true;
        break;
      }
      const c = cursors[i]!;
      if (c.cursor.advance(candidate) !== candidate) continue;
      const value = contribution(c, candidate);
      contributions[c.order] = value;
      partial += value;
    }
    if (pruned) continue;

    let score = 0;
    for (let i = 0; i < contributions.length; i++) score += contributions[i]!;
    if (top.offer(candidate, score) && top.full && top.threshold !== threshold) {
      threshold = top.threshold;
      const safeThreshold = threshold - PRUNING_MARGIN * Math.abs(threshold);
      while (firstEssential < n && boundBelow[firstEssential + 1]! < safeThreshold) firstEssential++;
    }
  }
  return top.sorted();
}
