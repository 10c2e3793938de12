/**
 * Fans one top-k query out over document ranges of every segment and merges
 * the partial results. Ranges run on a Piscina pool of worker threads that all
 * map the same segment buffers, or on the calling thread when the pool is
 * disabled (threads = 0) or the index is too small for threads to pay off.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Bitset } from './filters/bitset.js';
import type { Segment } from './segment/reader.js';
import { topKMaxScore, type DocRange } from './scoring/max-score.js';
import type { ScoredDoc } from './scoring/top-k.js';
import type { Bm25Params, CollectionStats, ScoringClause } from './scoring/bm25.js';

export interface SearchTask {
  segment: number;
  clauses: ScoringClause[];
  params: Bm25Params;
  stats: CollectionStats;
  k: number;
  range: DocRange;
  accept: { size: number; words: Uint32Array } | null;
}

export interface SegmentHit extends ScoredDoc {
  segment: number;
}

/** Below this many paragraphs per range, a thread hop costs more than it saves. */
export const DEFAULT_MIN_RANGE = 50_000;

export class SearchPool {
  private readonly pool: Piscina | null;

  constructor(
    private readonly segments: readonly Segment[],
    readonly threads: number,
    private readonly minRange: number = DEFAULT_MIN_RANGE,
  ) {
    const workerFile = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
    this.pool =
      threads > 0
        ? new Piscina({
            filename: fileURLToPath(workerFile),
            minThreads: threads,
            maxThreads: threads,
            workerData: { buffers: segments.map((s) => s.buffer) },
            // Workers load TypeScript sources through tsx when the server runs from source.
            // (Only that flag: process-wide flags such as --expose-gc are invalid in workers.)
            execArgv: workerFile.pathname.endsWith('.ts') ? ['--import', 'tsx'] : undefined,
          })
        : null;
  }

  /** Splits every segment into ranges, about one per thread for large segments. */
  private ranges(): { segment: number; range: DocRange }[] {
    const pieces: { segment: number; range: DocRange }[] = [];
    this.segments.forEach((segment, index) => {
      const total = segment.paragraphCount;
      const parts = this.pool ? Math.max(1, Math.min(this.threads, Math.floor(total / this.minRange))) : 1;
      const step = Math.ceil(total / parts);
      for (let from = 0; from < total; from += step) pieces.push({ segment: index, range: { from, to: Math.min(total, from + step) } });
    });
    return pieces;
  }

  async topK(
    clauses: ScoringClause[],
    params: Bm25Params,
    stats: CollectionStats,
    k: number,
    accept: readonly (Bitset | null)[],
  ): Promise<SegmentHit[]> {
    const pieces = this.ranges();
    const parallel = this.pool !== null && pieces.length > 1;
    const partials = await Promise.all(
      pieces.map(async ({ segment, range }) => {
        const filter = accept[segment] ?? null;
        const hits = parallel
          ? ((await this.pool!.run({
              segment,
              clauses,
              params,
              stats,
              k,
              range,
              accept: filter && { size: filter.size, words: filter.words },
            } satisfies SearchTask)) as ScoredDoc[])
          : topKMaxScore(this.segments[segment]!, clauses, params, stats, k, range, filter);
        return hits.map((hit) => ({ ...hit, segment }));
      }),
    );
    return partials
      .flat()
      .sort(compareHits)
      .slice(0, k);
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}

/** Best first; ties go to the earlier segment, then the earlier paragraph, as in one exhaustive pass. */
export function compareHits(a: SegmentHit, b: SegmentHit): number {
  return b.score - a.score || a.segment - b.segment || a.doc - b.doc;
}
