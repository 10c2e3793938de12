/**
 * Query clauses opened on a segment for the window scorer, and the per-thread
 * working memory the scorer reuses from query to query (grown on demand), so
 * a query allocates only its result.
 */
import type { Segment } from '../segment/reader.js';
import { PostingsCursor } from '../segment/postings.js';
import type { Bm25, CollectionStats, ScoringClause } from './bm25.js';
import { blockMaxRatios } from './block-max.js';

/** Paragraphs per window of the window scorer (a power of two, a multiple of 32). */
const WINDOW_BITS = 13;
export const WINDOW = 1 << WINDOW_BITS;
const WINDOW_WORDS = WINDOW >>> 5;

/** A query clause opened on one segment. */
export interface OpenClause {
  cursor: PostingsCursor;
  /** Postings are articles (title) rather than paragraphs. */
  perArticle: boolean;
  weight: number;
  norms: Uint8Array;
  lengthFactor: Float64Array;
  /** Per block of the field: the highest tf / (tf + lengthFactor) of its postings (filled for this clause's term); weight times it bounds the block. */
  blockMax: Float64Array;
  /** Position in the query: the order scores are summed in. */
  order: number;
}

/** Per-thread working memory, grown on demand and reused by every query. */
class Scratch {
  readonly clauses: OpenClause[] = [];
  readonly partial = new Float64Array(WINDOW);
  readonly touched = new Uint32Array(WINDOW_WORDS);
  contribution = new Float64Array(0);
  stamp = new Uint32Array(0);
  generation = 0;
  bound = new Float64Array(0);
  /** Blocks of each clause overlapping the current window (what decoding it would cost). */
  cost = new Float64Array(0);
  /** Clause indexes by increasing window bound, and each clause's rank in that order. */
  byBound = new Int32Array(0);
  rank = new Int32Array(0);
  boundBelow = new Float64Array(0);
  probed = new Float64Array(0);
  /** Whether the last probe of non-essential clauses found any of them. */
  probedAny = false;

  ensure(clauses: number): void {
    if (this.bound.length >= clauses) return;
    this.contribution = new Float64Array(clauses * WINDOW);
    this.stamp = new Uint32Array(clauses * WINDOW);
    this.bound = new Float64Array(clauses);
    this.cost = new Float64Array(clauses);
    this.byBound = new Int32Array(clauses);
    this.rank = new Int32Array(clauses);
    this.boundBelow = new Float64Array(clauses + 1);
    this.probed = new Float64Array(clauses);
  }

  /** A new stamp value for a window; stamps restart from zero on wrap-around. */
  nextGeneration(): number {
    if (++this.generation === 0xffffffff) {
      this.stamp.fill(0);
      this.generation = 1;
    }
    return this.generation;
  }

  clause(i: number): OpenClause {
    while (this.clauses.length <= i) {
      this.clauses.push({
        cursor: new PostingsCursor(),
        perArticle: false,
        weight: 0,
        norms: new Uint8Array(0),
        lengthFactor: new Float64Array(0),
        blockMax: new Float64Array(0),
        order: 0,
      });
    }
    return this.clauses[i]!;
  }
}

export const scratch = new Scratch();

/** Opens the clauses that have postings in this segment, in query order; returns how many (in scratch). */
export function openClauses(segment: Segment, clauses: readonly ScoringClause[], bm25: Bm25, stats: CollectionStats): OpenClause[] {
  let n = 0;
  clauses.forEach((clause, order) => {
    const ordinal = segment.termOrdinal(clause.term);
    if (ordinal < 0) return;
    const field = segment.fields[clause.field];
    if (field.postingCount[ordinal] === 0) return;
    const open = scratch.clause(n++);
    open.cursor.reset(field, ordinal);
    open.perArticle = clause.field === 'title';
    open.weight = clause.weight;
    open.norms = field.norms;
    open.lengthFactor = bm25.lengthFactors(stats.averageLength[clause.field]);
    open.blockMax = blockMaxRatios(field, ordinal, open.lengthFactor);
    open.order = order;
  });
  return scratch.clauses.slice(0, n);
}
