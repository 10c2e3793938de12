/**
 * This engine, in-process: IndexWriter to build, Searcher on the calling
 * thread for latency, its worker pool for throughput. The engine is the
 * compiled one in dist/ (bench:peers builds it), as `npm start` runs it
 * (bench/lib/compiled.ts says why).
 */
import type { Searcher } from '../../../src/search/searcher.js';
import type { FilterSpec } from '../../../src/search/query/filter-spec.js';
import { BM25, type FieldMode } from '../lib/config.js';
import { compiledModule } from '../../lib/compiled.js';
import { readArticles } from '../lib/docs.js';
import type { Filter, NodePeer } from './peer.js';
import { cycleQueries } from './repetition.js';

const { IndexWriter } = await compiledModule<typeof import('../../../src/search/index-writer.js')>('search/index-writer.js');
const { Searcher: CompiledSearcher } = await compiledModule<typeof import('../../../src/search/searcher.js')>('search/searcher.js');
const { compileFilterSpec } = await compiledModule<typeof import('../../../src/search/query/filter-spec.js')>('search/query/filter-spec.js');

const ymd = (n: number) => `${String(n).slice(0, 4)}-${String(n).slice(4, 6)}-${String(n).slice(6, 8)}`;

export function filterSpecOf(filter: Filter | null): FilterSpec {
  return filter ? compileFilterSpec({ date_from: ymd(filter.from), date_to: ymd(filter.to), article_types: [filter.type] }) : compileFilterSpec({});
}

export class EnginePeer implements NodePeer {
  private searcher: Searcher | null = null;
  private pooled: Searcher | null = null;
  private dir = '';
  private mode: FieldMode = 'split';
  private readonly specs = new Map<string, FilterSpec>();

  private options(threads: number) {
    // Merged layout: the title is inside the text, the (empty) title field gets no weight.
    return { threads, k1: BM25.k1, b: BM25.b, titleWeight: this.mode === 'split' ? BM25.titleWeight : 0, filterCacheSize: 64 };
  }

  async build(corpusFile: string, indexDir: string, mode: FieldMode): Promise<void> {
    // The segment size of bench/scale.ts.
    const writer = await IndexWriter.open(indexDir, { maxSegmentBytes: 256 * 1024 * 1024 });
    for await (const article of readArticles(corpusFile, mode === 'merged')) await writer.add(article);
    await writer.commit();
  }

  async open(indexDir: string, mode: FieldMode): Promise<void> {
    this.dir = indexDir;
    this.mode = mode;
    this.searcher = await CompiledSearcher.open(indexDir, this.options(0));
  }

  private spec(filter: Filter | null): FilterSpec {
    const key = filter ? `${filter.from}:${filter.to}:${filter.type}` : '-';
    let spec = this.specs.get(key);
    if (!spec) this.specs.set(key, (spec = filterSpecOf(filter)));
    return spec;
  }

  async search(query: string, k: number, filter: Filter | null): Promise<number> {
    return (await this.searcher!.search(query, k, this.spec(filter))).length;
  }

  async rank(query: string, k: number): Promise<string[]> {
    const hits = await this.searcher!.search(query, k, this.spec(null));
    return [...new Set(hits.map((hit) => this.searcher!.articleIdOf(hit)))];
  }

  /** The engine's own worker pool of `threads` threads, kept busy with 2 queries in flight per thread. */
  async throughput(queries: string[], k: number, filter: Filter | null, threads: number, maxSeconds: number, minSeconds: number) {
    // Opened once, in the harness's untimed warm-up, and kept: its load is not part of any figure.
    this.pooled ??= await CompiledSearcher.open(this.dir, this.options(threads));
    const pooled = this.pooled;
    const spec = this.spec(filter);
    return cycleQueries(queries, threads * 2, maxSeconds, minSeconds, (query) => pooled.search(query, k, spec));
  }

  versions(): Record<string, string> {
    return { engine: 'litserve (this checkout, compiled: dist/)' };
  }

  async close(): Promise<void> {
    await this.searcher?.close();
    await this.pooled?.close();
  }
}
