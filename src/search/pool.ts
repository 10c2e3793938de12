/**
 * Runs top-k queries on a Piscina pool of worker threads that all map the
 * same segment buffers. A query normally runs whole on one worker (the
 * pool's throughput is then one query per core). A long query (many
 * postings) arriving while no other query runs is split instead: the index's
 * paragraphs (all segments, in order) are cut into one contiguous share per
 * thread, and the shares publish their k-th best score in one shared slot so
 * each prunes against the best of all. A short query (few postings) runs on
 * the calling thread, as does every query without a pool (threads = 0) and,
 * in the server, one that fits one worker while no other query is pending.
 * The pool's threads also copy the stored fragments of large responses
 * (copyFragments).
 *
 * Documents travel as global ordinals (segment base + paragraph) in typed
 * arrays; the Searcher maps them back to (segment, paragraph).
 */
import { Piscina } from 'piscina';
import { workerExecArgv, workerModule } from '../runtime/worker-module.js';
import type { Bitset } from './filters/bitset.js';
import type { Segment } from './segment/reader.js';
import type { StoredFields } from './stored/reader.js';
import { COPY_FIELDS, copyFragments } from './stored/fragment-copies.js';
import { scoreWindows, type DocRange } from './scoring/window-scorer.js';
import { openClauses } from './scoring/open-clauses.js';
import { bestArticleScores } from './scoring/exhaustive.js';
import { TopKCollector, mergeScored, type ScoredDocs } from './scoring/top-k.js';
import { restoredFromThread } from './segment/errors.js';
import { bm25For, type Bm25Params, type CollectionStats, type ScoringClause } from './scoring/bm25.js';

interface Piece {
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
  /** One shared slot per split query: the best k-th score any share has reached. */
  sharedThreshold: Float64Array | null;
}

/**
 * A listing's ranking: each article's best paragraph score for the words of the text filters, per
 * segment, written by the worker into `best` (shared memory, one slot per article).
 */
export interface ListingScoresTask {
  clauses: ScoringClause[];
  params: Bm25Params;
  stats: CollectionStats;
  /** Per segment, the paragraphs passing the filters (shared words; null: none to score). */
  paragraphs: ({ size: number; words: Uint32Array } | null)[];
  best: Float64Array[];
}

/** Runs a listing's ranking over every segment (see ListingScoresTask). */
export function runListingScores(segments: readonly Segment[], task: ListingScoresTask, paragraphs: readonly (Bitset | null)[]): void {
  const bm25 = bm25For(task.params);
  task.best.forEach((best, s) => {
    const docs = paragraphs[s];
    if (docs) bestArticleScores(segments[s]!, task.clauses, bm25, task.stats, docs, best);
    else best.fill(-1);
  });
}

/** Postings (summed over clauses) from which a query is worth splitting, and the smallest share of paragraphs. */
const DEFAULT_MIN_RANGE = 50_000;

/** A share of a response's fragment copies for a worker: the rows, and the body's shared memory. */
export interface CopyTask {
  rows: Int32Array;
  body: SharedArrayBuffer;
  bodyOffset: number;
  bodyLength: number;
}

/**
 * Fragment copies from which a response is assembled on the pool's threads
 * rather than the calling one: decoding a hit's fragments costs about 15 µs
 * (1M paragraphs, bench/served-probe.ts), so a hundred hits are worth the
 * two thread hand-offs, and the calling thread is free to serve meanwhile.
 */
const DEFAULT_POOL_COPIES = 100;

/** Tasks handed to a worker at once (one running, the rest queued in the worker). */
const TASKS_QUEUED_PER_WORKER = 2;

/** First global ordinal of each segment. */
export function segmentBases(segments: readonly Segment[]): number[] {
  const bases: number[] = [];
  let base = 0;
  for (const segment of segments) {
    bases.push(base);
    base += segment.paragraphCount;
  }
  return bases;
}

const collector = new TopKCollector();

/** Runs a share of a query: its pieces in order into one top-k collector. */
export function runPieces(segments: readonly Segment[], bases: readonly number[], task: SearchTask, accept: readonly (Bitset | null)[]): ScoredDocs {
  const bm25 = bm25For(task.params);
  collector.reset(task.k, task.sharedThreshold);
  for (const { segment, range } of task.pieces) {
    const open = openClauses(segments[segment]!, task.clauses, bm25, task.stats);
    scoreWindows(segments[segment]!, open, range, accept[segment] ?? null, collector, bases[segment]!);
  }
  return collector.take();
}

/** One top-k query as the pool receives it. */
interface TopKQuery {
  clauses: ScoringClause[];
  params: Bm25Params;
  stats: CollectionStats;
  k: number;
  accept: readonly (Bitset | null)[];
}

/** A worker's task for a query over `pieces` (filters as their shared words, not copied). */
function taskOf(query: TopKQuery, pieces: Piece[], sharedThreshold: Float64Array | null): SearchTask {
  const { clauses, params, stats, k, accept } = query;
  return { pieces, clauses, params, stats, k, accept: accept.map((bits) => bits && { size: bits.size, words: bits.words }), sharedThreshold };
}

interface PoolOptions {
  /** The segments' stored fragments, in the same order (for copyFragments). */
  stored?: readonly StoredFields[];
  /** Postings from which a query is split over threads, and the smallest range a thread gets (default DEFAULT_MIN_RANGE). */
  minRange?: number;
  /** Postings under which a query runs on the calling thread (default 0: every query goes to the pool). */
  inlinePostings?: number;
  /** Fragment copies from which a response is assembled on the pool (default DEFAULT_POOL_COPIES). */
  poolCopies?: number;
  /** Run a query that would take one worker on the calling thread when no other query is pending (the server's setting; see poolWorthy). */
  inlineWhenAlone?: boolean;
}

export class SearchPool {
  private readonly pool: Piscina | null;
  private readonly bases: number[];
  private running = 0;
  /** Queries asked of this pool and not yet answered, wherever they run. */
  private pending = 0;

  private readonly stored: readonly StoredFields[];
  private readonly minRange: number;
  private readonly inlinePostings: number;
  private readonly poolCopies: number;
  private readonly inlineWhenAlone: boolean;

  constructor(
    private readonly segments: readonly Segment[],
    readonly threads: number,
    options: PoolOptions = {},
  ) {
    this.stored = options.stored ?? [];
    this.minRange = options.minRange ?? DEFAULT_MIN_RANGE;
    this.inlinePostings = options.inlinePostings ?? 0;
    this.poolCopies = options.poolCopies ?? DEFAULT_POOL_COPIES;
    this.inlineWhenAlone = options.inlineWhenAlone ?? false;
    this.bases = segmentBases(segments);
    const workerFile = workerModule('worker', import.meta.url, 'search-worker.cjs');
    const fromSource = workerFile.endsWith('.ts');
    this.pool =
      threads > 0
        ? new Piscina({
            filename: workerFile,
            minThreads: threads,
            maxThreads: threads,
            // A second task waits in the worker's own queue, so a worker that finishes a query
            // starts the next at once instead of idling until the main thread wakes up to hand
            // it one: on a loaded machine each hand-off waits for the scheduler (bench:peers
            // throughput on 2 threads, mixed queries: 2-3x more queries per second).
            concurrentTasksPerWorker: TASKS_QUEUED_PER_WORKER,
            workerData: { segments: segments.map((s) => s.share), stored: this.stored.map((s) => s.share) },
            // Workers load TypeScript sources through tsx when the server runs from source, and
            // nothing else: process-wide flags such as --expose-gc are invalid in workers, and a
            // loader inherited by compiled workers (a parent started with --import tsx) cost the
            // pool a third of its throughput (bench:peers, 1M paragraphs, 2 threads).
            execArgv: workerExecArgv(workerFile),
            // Without its disk cache: tsx's cache writes do not finish in these workers (the file
            // stays empty, its descriptor open after the worker ends), so each module a worker
            // compiled leaked a descriptor, about 90 per generation switch, and the empty file made
            // the next worker compile it again.
            ...(fromSource ? { env: { ...process.env, TSX_DISABLE_CACHE: '1' } } : {}),
          })
        : null;
  }

  /** Postings the query's clauses would read over the whole index. */
  private postings(clauses: readonly ScoringClause[]): number {
    let total = 0;
    for (const segment of this.segments) {
      for (const clause of clauses) {
        const ordinal = segment.termOrdinal(clause.term);
        if (ordinal >= 0) total += segment.fields[clause.field].postingCount[ordinal]!;
      }
    }
    return total;
  }

  /** Cuts the paragraphs of all segments into `count` contiguous runs of pieces. */
  private shares(count: number): Piece[][] {
    const total = this.segments.reduce((sum, s) => sum + s.paragraphCount, 0);
    const perShare = Math.ceil(total / count);
    const shares: Piece[][] = Array.from({ length: count }, () => []);
    this.segments.forEach((segment, index) => {
      const offset = this.bases[index]!;
      let from = 0;
      while (from < segment.paragraphCount) {
        const share = Math.min(count - 1, Math.floor((offset + from) / perShare));
        const to = Math.min(segment.paragraphCount, (share + 1) * perShare - offset);
        shares[share]!.push({ segment: index, range: { from, to } });
        from = to;
      }
    });
    return shares.filter((pieces) => pieces.length > 0);
  }

  /** Shares a pooled query is cut into (1: whole on one worker). */
  private shareCount(postings: number): number {
    if (this.running > 0 || this.threads < 2) return 1;
    const total = this.segments.reduce((sum, s) => sum + s.paragraphCount, 0);
    const count = Math.min(this.threads, Math.floor(total / this.minRange));
    return count > 1 && postings >= this.minRange ? count : 1;
  }

  /**
   * Whether a query goes to the pool's threads: never below `inlinePostings`.
   * With `inlineWhenAlone`, one that fits one worker (under minRange postings)
   * goes there only if another query is pending: alone, the two thread
   * hand-offs would cost more than the thread gains.
   */
  private poolWorthy(postings: number): 'yes' | 'no' | 'unless alone' {
    if (this.pool === null || postings < this.inlinePostings) return 'no';
    return this.inlineWhenAlone && postings < this.minRange ? 'unless alone' : 'yes';
  }

  async topK(clauses: ScoringClause[], params: Bm25Params, stats: CollectionStats, k: number, accept: readonly (Bitset | null)[]): Promise<ScoredDocs> {
    const query: TopKQuery = { clauses, params, stats, k, accept };
    this.pending++;
    try {
      const postings = this.pool === null ? 0 : this.postings(clauses);
      let worthy = this.poolWorthy(postings);
      if (worthy === 'unless alone') {
        // Alone is checked after one turn of the event loop (setImmediate runs after the pending
        // I/O callbacks), so requests that arrived together see each other and go to the pool:
        // a busy server keeps both cores.
        await new Promise((resolve) => setImmediate(resolve));
        worthy = this.pending === 1 && this.running === 0 ? 'no' : 'yes';
      }
      if (worthy === 'no') return runPieces(this.segments, this.bases, taskOf(query, this.wholeIndex(), null), accept);
      return await this.onPool(query, postings);
    } finally {
      this.pending--;
    }
  }

  /**
   * Each article's best paragraph score among `paragraphs` for `clauses`, per segment (-1: none). It
   * scores every such paragraph, as many as the filters let through, so it runs on the pool's threads
   * (a listing of a common word over a million paragraphs would hold the calling thread for a third of
   * a second); only a few postings' worth runs on the calling thread.
   */
  async listingScores(clauses: ScoringClause[], params: Bm25Params, stats: CollectionStats, paragraphs: readonly (Bitset | null)[]): Promise<Float64Array[]> {
    const best = this.segments.map((segment) => new Float64Array(new SharedArrayBuffer(8 * segment.articleCount)));
    const task: ListingScoresTask = { clauses, params, stats, paragraphs: paragraphs.map((bits) => bits && { size: bits.size, words: bits.words }), best };
    if (this.pool === null || this.postings(clauses) < this.inlinePostings) {
      runListingScores(this.segments, task, paragraphs);
      return best;
    }
    this.running++;
    try {
      await this.run(task, 'listingScoresTask');
    } finally {
      this.running--;
    }
    return best;
  }

  /** Every segment whole: the pieces of a query that is not split. */
  private wholeIndex(): Piece[] {
    return this.segments.map((s, segment) => ({ segment, range: { from: 0, to: s.paragraphCount } }));
  }

  private async onPool(query: TopKQuery, postings: number): Promise<ScoredDocs> {
    const count = this.shareCount(postings);
    const shares = count > 1 ? this.shares(count) : [this.wholeIndex()];
    const sharedThreshold = shares.length > 1 ? new Float64Array(new SharedArrayBuffer(8)).fill(-Infinity) : null;
    this.running++;
    try {
      const partials = await Promise.all(shares.map((pieces) => this.run(taskOf(query, pieces, sharedThreshold)) as Promise<ScoredDocs>));
      return mergeScored(partials, query.k);
    } finally {
      this.running--;
    }
  }

  /** Whether `copies` fragment copies are assembled on the pool's threads. */
  private copiesOnPool(copies: number): boolean {
    return this.pool !== null && copies >= this.poolCopies;
  }

  /** A body for `copies` fragment copies: in shared memory when the pool's threads will write them. */
  responseBody(size: number, copies: number): Buffer {
    return this.copiesOnPool(copies) ? Buffer.from(new SharedArrayBuffer(size)) : Buffer.allocUnsafe(size);
  }

  /**
   * Copies the fragments `rows` lists into `body` (from responseBody) and
   * returns the bytes to send. Many copies go to the pool: cut into one share
   * per thread when no other task runs, else whole to one worker; each share
   * writes its own places of the shared body, which is then copied once into
   * ordinary memory (fastify sends only those bytes as they are, and a
   * memcpy costs little beside decoding the fragments).
   */
  async copyFragments(rows: Int32Array, body: Buffer): Promise<Buffer> {
    // responseBody decided: a body in shared memory is for the pool's threads.
    if (!(body.buffer instanceof SharedArrayBuffer)) {
      copyFragments(this.stored, rows, body);
      return body;
    }
    const shares = this.running > 0 ? 1 : this.threads;
    const perShare = Math.ceil(rows.length / COPY_FIELDS / shares) * COPY_FIELDS;
    const tasks: CopyTask[] = [];
    for (let from = 0; from < rows.length; from += perShare) {
      // A copy of the share, not a view: a posted view carries its whole buffer to the worker.
      tasks.push({ rows: rows.slice(from, from + perShare), body: body.buffer, bodyOffset: body.byteOffset, bodyLength: body.length });
    }
    this.running++;
    try {
      await Promise.all(tasks.map((task) => this.run(task, 'copyFragmentsTask')));
    } finally {
      this.running--;
    }
    return Buffer.from(body);
  }

  /** Runs a task on the pool's threads; a damaged index file a worker met comes back as the error it was there (restoredFromThread). */
  private async run(task: SearchTask | ListingScoresTask | CopyTask, name?: 'listingScoresTask' | 'copyFragmentsTask'): Promise<unknown> {
    try {
      return await this.pool!.run(task, name === undefined ? {} : { name });
    } catch (error) {
      throw restoredFromThread(error);
    }
  }

  /** Tasks the pool's threads have completed (queries, shares of them, fragment copies). */
  get pooledTasks(): number {
    return this.pool?.completed ?? 0;
  }

  /**
   * Resolves once every worker thread has started and mapped the segments:
   * one empty task per thread (idle workers each take one). A reloaded index
   * is switched to only after this, so no query waits for threads to boot.
   */
  async warm(): Promise<void> {
    if (!this.pool) return;
    const empty: SearchTask = {
      pieces: [],
      clauses: [],
      params: { k1: 0, b: 0, fieldWeights: { text: 0, title: 0 } },
      stats: { documents: 0, averageLength: { text: 0, title: 0 } },
      k: 0,
      accept: [],
      sharedThreshold: null,
    };
    await Promise.all(Array.from({ length: this.threads }, () => this.pool!.run(empty)));
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}
