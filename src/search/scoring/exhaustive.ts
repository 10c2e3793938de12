/**
 * Scores every document of a given set (no pruning): used to rank the
 * paragraphs that pass the text filters of an article listing.
 */
import type { Segment } from '../segment/reader.js';
import type { Bitset } from '../filters/bitset.js';
import { openClauseCursors } from './max-score.js';
import type { Bm25Params, CollectionStats, ScoringClause } from './bm25.js';

export function scoreEach(
  segment: Segment,
  clauses: readonly ScoringClause[],
  params: Bm25Params,
  stats: CollectionStats,
  docs: Bitset,
  visit: (doc: number, score: number) => void,
): void {
  // Cursors come back in clause order, so scores are summed in the canonical order.
  const cursors = openClauseCursors(segment, clauses, params, stats, { from: 0, to: segment.paragraphCount });
  docs.forEach((doc) => {
    let score = 0;
    for (const c of cursors) {
      if (c.cursor.advance(doc) !== doc) continue;
      const freq = c.cursor.freq;
      score += (c.weight * freq) / (freq + c.lengthFactor[c.norms[doc]!]!);
    }
    visit(doc, score);
  });
}
