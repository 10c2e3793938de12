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
 * Bounds are per window of documents, from the block-level maxima stored in the
 * segment (highest term frequency, shortest length of each block), which are
 * much tighter than one bound per term; windows whose bounds sum below the
 * threshold are skipped without decoding a posting.
 *
 * Results equal exhaustive scoring exactly: pruning decisions keep a small
 * safety margin against rounding, and a kept document's score is re-summed in
 * the query's clause order, the order an exhaustive scorer adds in.
 */
import type { FieldData, Segment } from '../segment/reader.js';
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
  field: FieldData;
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
    cursors.push({ cursor, field, weight: clause.weight, norms: field.norms, lengthFactor, upperBound, order });
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
  sharedThreshold: Float64Array | null = null,
): ScoredDoc[] {
  const cursors = openClauseCursors(segment, clauses, params, stats, range);
  const n = cursors.length;
  if (n === 0 || k <= 0) return [];
  const blocks = new Int32Array(n);
  const bounds = new Float64Array(n);
  const order = Array.from({ length: n }, (_, i) => i);
  // boundBelow[i] = sum of the window bounds of order[0..i-1].
  const boundBelow = new Float64Array(n + 1);
  const contributions = new Float64Array(clauses.length);
  const top = new TopK(k);
  let threshold = -Infinity;
  const safe = (t: number) => t - PRUNING_MARGIN * Math.abs(t);
  // The threshold is the higher of this range's k-th score and the best k-th score any other
  // range of the same query has published: the final top k cannot score below either.
  const refreshThreshold = () => {
    const local = top.threshold;
    if (sharedThreshold !== null) {
      if (local > sharedThreshold[0]!) sharedThreshold[0] = local;
      threshold = Math.max(local, sharedThreshold[0]!);
    } else threshold = local;
  };

  // Windows: document ranges within which every clause stays inside one postings block,
  // so each clause's block maximum bounds its score there (block-max MaxScore).
  let windowMin = range.from;
  while (windowMin < range.to) {
    refreshThreshold();
    let windowMax = range.to - 1;
    let live = 0;
    for (let i = 0; i < n; i++) {
      const block = cursors[i]!.cursor.shallowAdvance(windowMin);
      blocks[i] = block;
      if (block < 0) continue;
      live++;
      windowMax = Math.min(windowMax, cursors[i]!.field.blockLastDoc[block]!);
    }
    if (live === 0) break;
    for (let i = 0; i < n; i++) bounds[i] = blocks[i]! < 0 ? 0 : blockBound(cursors[i]!, blocks[i]!);
    order.sort((a, b) => bounds[a]! - bounds[b]!);
    for (let i = 0; i < n; i++) boundBelow[i + 1] = boundBelow[i]! + bounds[order[i]!]!;
    if (boundBelow[n]! < safe(threshold)) {
      windowMin = windowMax + 1; // nothing in this window can enter the top k
      continue;
    }
    let firstEssential = 0;
    while (firstEssential < n && boundBelow[firstEssential + 1]! < safe(threshold)) firstEssential++;

    for (;;) {
      let candidate = NO_MORE_DOCS;
      for (let i = firstEssential; i < n; i++) {
        const cursor = cursors[order[i]!]!.cursor;
        candidate = Math.min(candidate, cursor.doc >= windowMin ? cursor.doc : cursor.advance(windowMin));
      }
      if (candidate > windowMax) break;

      if (accept !== null && !accept.has(candidate)) {
        for (let i = firstEssential; i < n; i++) {
          const cursor = cursors[order[i]!]!.cursor;
          if (cursor.doc === candidate) cursor.next();
        }
        continue;
      }

      let partial = 0;
      contributions.fill(0);
      for (let i = firstEssential; i < n; i++) {
        const c = cursors[order[i]!]!;
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
        const c = cursors[order[i]!]!;
        if (c.cursor.advance(candidate) !== candidate) continue;
        const value = contribution(c, candidate);
        contributions[c.order] = value;
        partial += value;
      }
      if (pruned) continue;

      let score = 0;
      for (let i = 0; i < contributions.length; i++) score += contributions[i]!;
      if (top.offer(candidate, score) && top.full) {
        refreshThreshold();
        while (firstEssential < n && boundBelow[firstEssential + 1]! < safe(threshold)) firstEssential++;
      }
    }
    windowMin = windowMax + 1;
  }
  return top.sorted();
}

/** Highest score the clause can give any document of one of its blocks. */
function blockBound(c: ClauseCursor, block: number): number {
  const maxTf = c.field.blockMaxTf[block]!;
  return (c.weight * maxTf) / (maxTf + c.lengthFactor[c.field.blockMinNorm[block]!]!);
}
