/**
 * Scores every document of a given set (no pruning): used to rank the
 * paragraphs that pass the text filters of an article listing.
 */
import type { Segment } from '../segment/reader.js';
import type { Bitset } from '../filters/bitset.js';
import { openClauses } from './open-clauses.js';
import { termScore, type Bm25, type CollectionStats, type ScoringClause } from './bm25.js';

export function scoreEach(
  segment: Segment,
  clauses: readonly ScoringClause[],
  bm25: Bm25,
  stats: CollectionStats,
  docs: Bitset,
  visit: (doc: number, score: number) => void,
): void {
  // Clauses come back in query order, so scores are summed in the canonical order.
  const open = openClauses(segment, clauses, bm25, stats);
  docs.forEach((doc) => {
    let score = 0;
    for (const clause of open) {
      const target = clause.perArticle ? segment.paragraphArticle[doc]! : doc;
      if (clause.cursor.advance(target) !== target) continue;
      score += termScore(clause.weight, clause.cursor.freq, clause.lengthFactor[clause.norms[target]!]!);
    }
    visit(doc, score);
  });
}

/**
 * Writes into `best` (one slot per article of the segment) each article's best score over its
 * paragraphs in `paragraphs`, and -1 for an article with none: the ranking of a listing by the
 * words of its text filters.
 */
export function bestArticleScores(
  segment: Segment,
  clauses: readonly ScoringClause[],
  bm25: Bm25,
  stats: CollectionStats,
  paragraphs: Bitset,
  best: Float64Array,
): void {
  best.fill(-1);
  scoreEach(segment, clauses, bm25, stats, paragraphs, (doc, score) => {
    const article = segment.paragraphArticle[doc]!;
    if (score > best[article]!) best[article] = score;
  });
}
