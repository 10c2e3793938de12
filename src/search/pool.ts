/**
 * Fans one top-k query out over the index and merges the partial results.
 * The index's paragraphs (all segments, in order) are cut into one
 * contiguous share per thread; each share runs on a Piscina worker, all
 * workers mapping the same segment buffers. Without a pool (threads = 0), or
 * when the index is too small for threads to pay off, the calling thread
 * does the work. Every share publishes its k-th best score in one shared slot
 * so the others can prune against it.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { carriedFile } from '../runtime/carried.js';
import type { Bitset } from './filters/bitset.js';
import type { Segment } from './segment/reader.js';
import { topKMaxScore, type DocRange } from './scoring/max-score.js';
import type { ScoredDoc } from './scoring/top-k.js';
import type { Bm25Params, CollectionStats, ScoringClause } from './scoring/bm25.js';

export interface Piece {
  segment: number;
  range: DocRange;
}

export interface SearchTask {
  pieces: Piece[];
  clauses: ScoringClause[];
  params: Bm25Params;
  stats: CollectionStats;
  k: number;
  /** Filter bitset words per segment (null = no filter), shared, not copied. */
  accept: ({ size: number; words: Uint32Array } | null)[];
  /** One shared slot per query: the best k-th score any share has reached. */
  sharedThreshold: Float64Array;
}

export interface SegmentHit extends ScoredDoc {
  segment: number;
}

/** Below this many paragraphs per thread, a thread hop costs more than it saves. */
export const DEFAULT_MIN_RANGE = 50_000;

/** Runs a share of a query: its pieces in order, one heap per piece. */
export function runPieces(segments: readonly Segment[], task: SearchTask, accept: readonly (Bitset | null)[]): SegmentHit[] {
  const hits: SegmentHit[] = [];
  for (const { segment, range } of task.pieces) {
    const found = topKMaxScore(segments[segment]!, task.clauses, task.params, task.stats, task.k, range, accept[segment] ?? null, task.sharedThreshold);
    for (const hit of found) hits.push({ ...hit, segment });
  }
  return hits;
}

export class SearchPool {
  private readonly pool: Piscina | null;

  constructor(
    private readonly segments: readonly Segment[],
    readonly threads: number,
    private readonly minRange: number = DEFAULT_MIN_RANGE,
  ) {
    // Inside the single executable the worker is a file it extracted; otherwise it sits beside this module.
    const workerFile =
      carriedFile('search-worker.cjs') ?? fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url));
    this.pool =
      threads > 0
        ? new Piscina({
            filename: workerFile,
            minThreads: threads,
            maxThreads: threads,
            workerData: { buffers: segments.map((s) => s.buffer) },
            // Workers load TypeScript sources through tsx when the server runs from source.
            // (Only that flag: process-wide flags such as --expose-gc are invalid in workers.)
            execArgv: workerFile.endsWith('.ts') ? ['--import', 'tsx'] : undefined,
          })
        : null;
  }

  /** Cuts the paragraphs of all segments into `shares` contiguous runs of pieces. */
  private shares(): Piece[][] {
    const total = this.segments.reduce((sum, s) => sum + s.paragraphCount, 0);
    const count = this.pool ? Math.max(1, Math.min(this.threads, Math.floor(total / this.minRange))) : 1;
    const perShare = Math.ceil(total / count);
    const shares: Piece[][] = Array.from({ length: count }, () => []);
    let offset = 0;
    this.segments.forEach((segment, index) => {
      let from = 0;
      while (from < segment.paragraphCount) {
        const share = Math.min(count - 1, Math.floor((offset + from) / perShare));
        const to = Math.min(segment.paragraphCount, (share + 1) * perShare - offset);
        shares[share]!.push({ segment: index, range: { from, to } });
        from = to;
      }
      offset += segment.paragraphCount;
    });
    return shares.filter((pieces) => pieces.length > 0);
  }

  async topK(
    clauses: ScoringClause[],
    params: Bm25Params,
    stats: CollectionStats,
    k: number,
    accept: readonly (Bitset | null)[],
  ): Promise<SegmentHit[]> {
    const shares = this.shares();
    const sharedThreshold = new Float64Array(new SharedArrayBuffer(8)).fill(-Infinity);
    const task = (pieces: Piece[]): SearchTask => ({
      pieces,
      clauses,
      params,
      stats,
      k,
      accept: accept.map((bits) => bits && { size: bits.size, words: bits.words }),
      sharedThreshold,
    });
    const partials =
      this.pool !== null && shares.length > 1
        ? await Promise.all(shares.map((pieces) => this.pool!.run(task(pieces)) as Promise<SegmentHit[]>))
        : shares.map((pieces) => runPieces(this.segments, task(pieces), accept));
    return partials.flat().sort(compareHits).slice(0, k);
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}

/** Best first; ties go to the earlier segment, then the earlier paragraph, as in one exhaustive pass. */
export function compareHits(a: SegmentHit, b: SegmentHit): number {
  return b.score - a.score || a.segment - b.segment || a.doc - b.doc;
}
