/**
 * MiniSearch 7, in-process. Settings closest to the engine: BM25 with k 0.6,
 * b 0.75 and d 0 (MiniSearch defaults to BM25+), per-field scoring with the
 * title boosted 0.25, no prefix or fuzzy matching, OR of the query terms, and
 * the engine's own analyser as tokenizer (MiniSearch has no stemmer or
 * stopword list of its own). MiniSearch scores every matching document and
 * multiplies a score by the number of query terms it matched; both are its
 * design and stay. Filters are its `filter` callback on stored fields.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { analyze, analyzeUnique } from '../../../src/search/analysis/analyzer.js';
import { BM25, type FieldMode } from '../lib/config.js';
import { readRows } from '../lib/docs.js';
import { importPeerPackage } from './optional-import.js';
import { dateNumber, packageVersion, type Filter, type NodePeer } from './peer.js';

interface Doc {
  id: number;
  text: string;
  title: string;
  article: string;
  date: number;
  type: string;
}
interface Result {
  article: string;
  date: number;
  type: string;
}
interface MiniSearchIndex {
  addAll(docs: Doc[]): void;
  search(query: string, options?: { filter?: (result: Result) => boolean }): Result[];
  toJSON(): Record<string, unknown> & { index: unknown[] };
}
interface MiniSearchClass {
  new (options: unknown): MiniSearchIndex;
  loadJS(js: unknown, options: unknown): MiniSearchIndex;
}

const INDEX_FILE = 'minisearch.ndjson';

function optionsFor(mode: FieldMode) {
  return {
    fields: mode === 'split' ? ['text', 'title'] : ['text'],
    storeFields: ['article', 'date', 'type'],
    tokenize: (text: string) => analyze(text),
    processTerm: (term: string) => term,
    searchOptions: {
      // Distinct query terms, as the engine scores them.
      tokenize: (text: string) => analyzeUnique(text),
      processTerm: (term: string) => term,
      boost: { title: BM25.titleWeight },
      bm25: { k: BM25.k1, b: BM25.b, d: 0 },
      combineWith: 'OR',
      prefix: false,
      fuzzy: false,
    },
  };
}

async function writeLine(out: ReturnType<typeof createWriteStream>, line: string): Promise<void> {
  if (!out.write(line + '\n')) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
}

export class MiniSearchPeer implements NodePeer {
  private index: MiniSearchIndex | null = null;

  private static async load(): Promise<MiniSearchClass> {
    return (await importPeerPackage<{ default: MiniSearchClass }>('minisearch')).default;
  }

  async build(corpusFile: string, indexDir: string, mode: FieldMode): Promise<void> {
    const MiniSearch = await MiniSearchPeer.load();
    const index = new MiniSearch(optionsFor(mode));
    let batch: Doc[] = [];
    let id = 0;
    for await (const row of readRows(corpusFile)) {
      const text = mode === 'merged' ? `${row.title} ${row.text}` : row.text;
      batch.push({ id: id++, text, title: mode === 'merged' ? '' : row.title, article: row.article, date: dateNumber(row.date), type: row.type });
      if (batch.length === 10_000) (index.addAll(batch), (batch = []));
    }
    index.addAll(batch);
    // MiniSearch persists through one JSON string, which outgrows V8's string limit on
    // large corpora; the same object is written one index entry a line instead.
    await mkdir(indexDir, { recursive: true });
    const { index: entries, ...header } = index.toJSON();
    const out = createWriteStream(path.join(indexDir, INDEX_FILE));
    await writeLine(out, JSON.stringify({ mode, header }));
    for (const entry of entries) await writeLine(out, JSON.stringify(entry));
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }

  async open(indexDir: string): Promise<void> {
    const MiniSearch = await MiniSearchPeer.load();
    const lines = readline.createInterface({ input: createReadStream(path.join(indexDir, INDEX_FILE)), crlfDelay: Infinity });
    let header: { mode: FieldMode; header: Record<string, unknown> } | null = null;
    const entries: unknown[] = [];
    for await (const line of lines) {
      if (header === null) header = JSON.parse(line) as typeof header;
      else entries.push(JSON.parse(line));
    }
    this.index = MiniSearch.loadJS({ ...header!.header, index: entries }, optionsFor(header!.mode));
  }

  private results(query: string, filter: Filter | null): Result[] {
    return this.index!.search(
      query,
      filter ? { filter: (r) => r.type === filter.type && r.date >= filter.from && r.date <= filter.to } : {},
    );
  }

  async search(query: string, k: number, filter: Filter | null): Promise<number> {
    return Math.min(k, this.results(query, filter).length);
  }

  async rank(query: string, k: number): Promise<string[]> {
    return [...new Set(this.results(query, null).slice(0, k).map((r) => r.article))];
  }

  versions(): Record<string, string> {
    return { minisearch: packageVersion('minisearch') };
  }

  async close(): Promise<void> {
    this.index = null;
  }
}
