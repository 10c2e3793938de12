/**
 * The engine's entry point: opens an index directory and answers paragraph
 * searches, article counts and listings, and filter-value suggestions.
 * Pure and in-process: no HTTP, nothing of the service.
 */
import { LRUCache } from 'lru-cache';
import { analyzeUnique } from './analysis/analyzer.js';
import { IndexSnapshot } from './snapshot.js';
import { SearchPool, segmentBases } from './pool.js';
import { compileSegmentFilter, type SegmentFilter } from './filters/compile.js';
import { filterKey, hasTextFilter, type FilterSpec } from './query/filter-spec.js';
import { Bm25, type Bm25Params, type ScoringClause } from './scoring/bm25.js';
import { TopKCollector } from './scoring/top-k.js';
import { FilterValues } from './suggest.js';
import type { StoredFields } from './stored/reader.js';
import type { Manifest } from './manifest.js';

/** Outside the engine, an error a search or a fragment copy threw says through this which index file it found damaged (or null). */
export { damagedFileOf, isOutdatedFormat } from './segment/errors.js';

export interface SearcherOptions {
  /** Worker threads for top-k search; 0 = search on the calling thread. */
  threads: number;
  k1: number;
  b: number;
  titleWeight: number;
  /** Compiled filters kept in memory. */
  filterCacheSize: number;
  /** Postings from which a query is split over threads, and the smallest range a thread gets (tests lower it to exercise the split). */
  minRangePerThread?: number;
  /** Postings under which a query runs on the calling thread rather than the pool (default 0: always the pool). */
  inlinePostings?: number;
  /** Fragment copies from which a response body is assembled on the pool (default DEFAULT_POOL_COPIES). */
  poolCopies?: number;
  /** Run a query that would take one worker on the calling thread when no other is pending (default false; the server sets it). */
  inlineWhenAlone?: boolean;
}

export interface ParagraphHit {
  segment: number;
  paragraph: number;
  score: number;
}

/** What /settings and the logs show of a loaded index. */
export interface IndexStatistics {
  segments: number;
  /** Live articles (replaced and deleted ones excluded). */
  articles: number;
  /** The live articles' paragraphs. */
  paragraphs: number;
}

/** Where an article is in a loaded index: its segment and its ordinal there. */
export interface ArticleLocation {
  segment: number;
  article: number;
}

export interface ArticleHit extends ArticleLocation {
  /** Best paragraph score when the listing had text filters, else null. */
  score: number | null;
}

export class Searcher {
  readonly params: Bm25Params;
  readonly suggestions: FilterValues;
  private readonly bm25: Bm25;
  private readonly filters: LRUCache<string, SegmentFilter[]> | null;
  /** First global paragraph ordinal of each segment (the pool's document numbering). */
  private readonly bases: number[];

  private constructor(
    /** The loaded segments: for the engine itself, its tests and benchmarks; everything else reads through the methods below. */
    readonly snapshot: IndexSnapshot,
    private readonly pool: SearchPool,
    options: SearcherOptions,
  ) {
    this.params = { k1: options.k1, b: options.b, fieldWeights: { text: 1, title: options.titleWeight } };
    this.bm25 = new Bm25(this.params);
    this.bases = segmentBases(snapshot.segments.map((s) => s.segment));
    this.filters = options.filterCacheSize > 0 ? new LRUCache({ max: options.filterCacheSize }) : null;
    this.suggestions = new FilterValues(snapshot);
  }

  /** Opens the index in `dir`; `previous` (an older generation of it) lends the segments it already holds (see IndexSnapshot.open). */
  static async open(dir: string, options: SearcherOptions, previous?: Searcher): Promise<Searcher> {
    const snapshot = await IndexSnapshot.open(dir, previous?.snapshot);
    const pool = new SearchPool(snapshot.segments.map((s) => s.segment), options.threads, {
      stored: snapshot.segments.map((s) => s.stored),
      minRange: options.minRangePerThread,
      inlinePostings: options.inlinePostings,
      poolCopies: options.poolCopies,
      inlineWhenAlone: options.inlineWhenAlone,
    });
    return new Searcher(snapshot, pool, options);
  }

  get threads(): number {
    return this.pool.threads;
  }

  /** The manifest generation this searcher serves. */
  get generation(): number {
    return this.snapshot.manifest.generation;
  }

  /** Whether `manifest` describes what this searcher serves: the same manifest and the very same segment files. */
  serves(manifest: Manifest): Promise<boolean> {
    return this.snapshot.holds(manifest);
  }

  statistics(): IndexStatistics {
    const { segments, liveArticleCount } = this.snapshot;
    // Live paragraphs, as articles counts live articles: a replaced or deleted article's paragraphs stay in its segment until a merge.
    const paragraphs = segments.reduce((sum, { segment, liveParagraphs }) => sum + (liveParagraphs ? liveParagraphs.count() : segment.paragraphCount), 0);
    return { segments: segments.length, articles: liveArticleCount, paragraphs };
  }

  /** The pre-rendered JSON fragments of a segment's articles and paragraphs. */
  storedFields(segment: number): StoredFields {
    return this.snapshot.segments[segment]!.stored;
  }

  /** A response body of `size` bytes for `copies` fragment copies (copyFragments). */
  responseBody(size: number, copies: number): Buffer {
    return this.pool.responseBody(size, copies);
  }

  /** Copies stored fragments into a response body (hits-json.ts lists them), on the pool's threads when they are many; returns the bytes to send. */
  copyFragments(rows: Int32Array, body: Buffer): Promise<Buffer> {
    return this.pool.copyFragments(rows, body);
  }

  /** The article (ordinal in its segment) a paragraph belongs to. */
  articleOfParagraph(segment: number, paragraph: number): number {
    return this.snapshot.segments[segment]!.segment.paragraphArticle[paragraph]!;
  }

  /** Calls `visit` with the id and location of every live article, in index order. */
  forEachLiveArticle(visit: (articleId: string, location: ArticleLocation) => void): void {
    this.snapshot.segments.forEach(({ segment, liveArticles }, s) => {
      for (let a = 0; a < segment.articleCount; a++) {
        if (!liveArticles || liveArticles.has(a)) visit(segment.articleIds.get(a), { segment: s, article: a });
      }
    });
  }

  /** Compiled filters held in memory (at most `filterCacheSize`). */
  get cachedFilters(): number {
    return this.filters?.size ?? 0;
  }

  /** Weighted clauses of a query: each distinct term in the text field and, if weighted, the title field. */
  clauses(terms: readonly string[]): ScoringClause[] {
    const { documents } = this.snapshot.stats;
    const clauses: ScoringClause[] = [];
    for (const term of terms) {
      for (const field of ['text', 'title'] as const) {
        const fieldWeight = this.params.fieldWeights[field];
        if (fieldWeight <= 0) continue;
        const df = this.snapshot.docFreq(term, field);
        if (df === 0) continue;
        clauses.push({ term, field, weight: this.bm25.clauseWeight(field, documents, df) });
      }
    }
    return clauses;
  }

  /** Per-segment bitsets for a filter, computed once and cached. */
  compiledFilter(spec: FilterSpec): SegmentFilter[] {
    const key = filterKey(spec);
    let compiled = this.filters?.get(key);
    if (!compiled) {
      compiled = this.snapshot.segments.map((segment) => compileSegmentFilter(segment, spec));
      this.filters?.set(key, compiled);
    }
    return compiled;
  }

  /** Whether the query holds a word the analyser keeps, not only stopwords or punctuation. */
  hasSearchableWord(query: string): boolean {
    return analyzeUnique(query).length > 0;
  }

  /** The `k` best paragraphs for a free-text query under the filters. */
  async search(query: string, k: number, spec: FilterSpec): Promise<ParagraphHit[]> {
    const clauses = this.clauses(analyzeUnique(query));
    if (clauses.length === 0) return [];
    const filters = this.compiledFilter(spec);
    if (k <= 0) return [];
    const { docs, scores } = await this.pool.topK(
      clauses,
      this.params,
      this.snapshot.stats,
      k,
      filters.map((f) => f.paragraphs),
    );
    const hits: ParagraphHit[] = new Array(docs.length);
    let segment = 0;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      // Hits are in score order, not document order: find the segment from the start when needed.
      if (doc < this.bases[segment]!) segment = 0;
      while (segment + 1 < this.bases.length && this.bases[segment + 1]! <= doc) segment++;
      hits[i] = { segment, paragraph: doc - this.bases[segment]!, score: scores[i]! };
    }
    return hits;
  }

  articleIdOf(hit: Pick<ParagraphHit, 'segment' | 'paragraph'>): string {
    return this.snapshot.segments[hit.segment]!.segment.articleIds.get(this.articleOfParagraph(hit.segment, hit.paragraph));
  }

  /** Exact number of articles matching the filters. */
  countArticles(spec: FilterSpec): number {
    return this.compiledFilter(spec).reduce(
      (sum, filter, i) => sum + (filter.articles ? filter.articles.count() : this.snapshot.segments[i]!.segment.articleCount),
      0,
    );
  }

  /**
   * Up to `limit` matching articles: by best paragraph score for the text
   * filters' words when there are text filters (unless sortByDate), else newest first.
   */
  async listArticles(spec: FilterSpec, limit: number, sortByDate: boolean): Promise<ArticleHit[]> {
    const filters = this.compiledFilter(spec);
    const bestScores = hasTextFilter(spec) ? await this.bestParagraphScores(spec, filters) : null;
    // One ordinal space over all segments, so ties break the same way on every request.
    const bases: number[] = [];
    let base = 0;
    for (const { segment } of this.snapshot.segments) {
      bases.push(base);
      base += segment.articleCount;
    }
    const top = new TopKCollector(limit);
    const rankByScore = bestScores !== null && !sortByDate;
    this.snapshot.segments.forEach(({ segment }, s) => {
      const visit = (article: number) => {
        const date = segment.articleDate[article]!;
        // Dates rank as numbers; undated articles come last.
        const key = rankByScore ? bestScores[s]![article]! : date < 0 ? -1 : date;
        top.collect(bases[s]! + article, key);
      };
      const articles = filters[s]!.articles;
      if (articles) articles.forEach(visit);
      else for (let a = 0; a < segment.articleCount; a++) visit(a);
    });
    return Array.from(top.take().docs, (doc) => {
      let s = bases.length - 1;
      while (bases[s]! > doc) s--;
      const article = doc - bases[s]!;
      return { segment: s, article, score: bestScores ? bestScores[s]![article]! : null };
    });
  }

  /** For each segment, the best score of each article's matching paragraphs for the text filters' words (-1: none). */
  private bestParagraphScores(spec: FilterSpec, filters: SegmentFilter[]): Promise<Float64Array[]> {
    const terms = [...new Set([...spec.topics.flat(), ...spec.regions.flat()])];
    return this.pool.listingScores(this.clauses(terms), this.params, this.snapshot.stats, filters.map((filter) => filter.paragraphs));
  }

  /** Resolves once the worker threads are up (see SearchPool.warm). */
  warm(): Promise<void> {
    return this.pool.warm();
  }

  async close(): Promise<void> {
    await this.pool.close();
    this.snapshot.close();
  }
}
