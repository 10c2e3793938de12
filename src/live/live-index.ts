/**
 * The index a running server serves, switched to each newly published
 * generation without a restart.
 *
 * Every piece of work that reads the index does so through `read`, which pins
 * the generation current when it starts: a request that began before a switch
 * finishes on the old generation, one that begins after sees only the new
 * one, and none sees a mix (search hits are positions in one generation's
 * segments, so mixing would be wrong, not just stale). Each generation counts
 * its readers; a generation that has been replaced is released (its search
 * pool's worker threads stopped, its segments left to the garbage collector)
 * when its last reader ends. Unchanged segments are shared between
 * generations, so a switch costs memory only for what changed.
 *
 * The server never writes the index: writers (ingest, merge) publish by the
 * manifest swap and `reload` picks the result up.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { readManifest } from '../search/manifest.js';
import { Searcher, type SearcherOptions } from '../search/searcher.js';
import { Library } from '../corpus/library.js';
import type { ArticleMetadata } from '../corpus/model.js';

/** One generation of the index, as the request that pinned it sees it. */
export interface IndexView {
  readonly generation: number;
  readonly searcher: Searcher;
  readonly library: Library;
}

/** What code that reads the index needs: a way to pin a generation for the length of a piece of work. */
export interface IndexReader {
  read<T>(work: (view: IndexView) => Promise<T> | T): Promise<T>;
}

interface ReloadResult {
  switched: boolean;
  /** The generation served after the call. */
  generation: number;
  previous: number;
}

export interface LiveIndexLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * A published generation that could not be loaded (the served one is kept), with the failure's message,
 * stack and code. Not as its `cause`: log serializers append a cause's message, which said it twice.
 */
export class GenerationLoadError extends Error {
  readonly code: string | undefined;

  constructor(
    readonly generation: number,
    failure: Error,
  ) {
    super(failure.message);
    this.stack = failure.stack;
    this.code = (failure as NodeJS.ErrnoException).code;
  }
}

const SILENT: LiveIndexLog = { info: () => {}, warn: () => {} };

/** How long close() waits for reads still under way (their requests were cut at the drain's end) to let the generation go. */
const CLOSE_WAIT_MS = 2_000;

/** A writer that publishes again while a reload reads the files may remove them under it: read the manifest again this often. */
const LOAD_ATTEMPTS = 5;

interface Served extends IndexView {
  readers: number;
  retired: boolean;
  /** Settles when the generation is let go: retired, and its last read ended. */
  letGo: Promise<void>;
  markLetGo(): void;
}

function served(searcher: Searcher): Served {
  let markLetGo = () => {};
  const letGo = new Promise<void>((resolve) => (markLetGo = resolve));
  return { generation: searcher.generation, searcher, library: new Library(searcher), readers: 0, retired: false, letGo, markLetGo };
}

/** Waits for `promise`, for `ms` at most. */
async function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  const giveUp = new AbortController();
  try {
    await Promise.race([promise, sleep(ms, undefined, { signal: giveUp.signal })]);
  } finally {
    giveUp.abort();
  }
}

export class LiveIndex implements IndexReader {
  private active: Served;
  /** Reloads run one after another: each compares against what the previous one left. */
  private reloads: Promise<unknown> = Promise.resolve();
  private readonly releasing = new Set<Promise<void>>();

  private constructor(
    readonly dir: string,
    private readonly options: SearcherOptions,
    private readonly log: LiveIndexLog,
    initial: Searcher,
  ) {
    this.active = served(initial);
  }

  static async open(dir: string, options: SearcherOptions, log: LiveIndexLog = SILENT): Promise<LiveIndex> {
    const searcher = await Searcher.open(dir, options);
    await searcher.warm();
    return new LiveIndex(dir, options, log, searcher);
  }

  /** The generation being served, for synchronous reads (nothing can switch under a synchronous call). */
  get current(): IndexView {
    return this.active;
  }

  async read<T>(work: (view: IndexView) => Promise<T> | T): Promise<T> {
    const { view, release } = this.heldView();
    try {
      return await work(view);
    } finally {
      release();
    }
  }

  /** The generation served now, held as a request holds it (`read`) until `release`: a later release does nothing. */
  hold(): { getArticle(articleId: string): ArticleMetadata | null; release(): void } {
    const { view, release } = this.heldView();
    return { getArticle: (articleId) => view.library.getArticle(articleId), release };
  }

  /** The served generation, counted as read until `release`, and released once retired and read by no one. */
  private heldView(): { view: Served; release: () => void } {
    const view = this.active;
    view.readers++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      view.readers--;
      if (view.retired && view.readers === 0) this.release(view);
    };
    return { view, release };
  }

  /** Switches to the published generation if it differs from the one served. Concurrent calls queue. */
  reload(): Promise<ReloadResult> {
    const next = this.reloads.then(() => this.reloadNow());
    this.reloads = next.catch(() => {});
    return next;
  }

  private async reloadNow(): Promise<ReloadResult> {
    const previous = this.active;
    for (let attempt = 1; ; attempt++) {
      const manifest = await readManifest(this.dir);
      if (await previous.searcher.serves(manifest)) return { switched: false, generation: manifest.generation, previous: previous.generation };
      const started = performance.now();
      let searcher: Searcher | undefined;
      try {
        searcher = await Searcher.open(this.dir, this.options, previous.searcher);
        // Switch only once the new generation's worker threads are up: no request waits for them to boot.
        await searcher.warm();
      } catch (error) {
        // Opened but unable to serve: its threads, its files and its holds on the served generation's segments would stay.
        await searcher?.close().catch((closing: unknown) => this.log.warn({ err: closing }, 'closing an index generation that failed to start failed'));
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt < LOAD_ATTEMPTS) continue;
        throw new GenerationLoadError(manifest.generation, error as Error);
      }
      const next = served(searcher);
      this.active = next;
      previous.retired = true;
      if (previous.readers === 0) this.release(previous);
      this.log.info(
        {
          generation: next.generation,
          previousGeneration: previous.generation,
          segments: searcher.statistics().segments,
          articles: searcher.statistics().articles,
          loadMs: Math.round(performance.now() - started),
          previousReaders: previous.readers,
        },
        'index generation switched',
      );
      return { switched: true, generation: next.generation, previous: previous.generation };
    }
  }

  private release(view: Served): void {
    view.markLetGo();
    const done = view.searcher
      .close()
      .then(() => this.log.info({ generation: view.generation }, 'index generation released'))
      .catch((error: unknown) => this.log.warn({ err: error, generation: view.generation }, 'closing a replaced index generation failed'))
      .finally(() => this.releasing.delete(done));
    this.releasing.add(done);
  }

  // The platform's view of the literature (synchronous calls: the current generation).
  getArticle(articleId: string): ArticleMetadata | null {
    return this.active.library.getArticle(articleId);
  }

  listArticleIds(offset: number, limit: number): string[] {
    return this.active.library.listArticleIds(offset, limit);
  }

  articleCount(): number {
    return this.active.library.articleCount();
  }

  /** Stops serving: waits for reloads under way and releases every generation (call once requests have drained). */
  async close(): Promise<void> {
    await this.reloads;
    const view = this.active;
    view.retired = true;
    if (view.readers === 0) this.release(view);
    // A read still under way releases the generation as it ends: waited for (a little), so that the release and its
    // line come before the close's end, and the server's last log line after them.
    await waitAtMost(view.letGo, CLOSE_WAIT_MS);
    await Promise.all(this.releasing);
  }
}
