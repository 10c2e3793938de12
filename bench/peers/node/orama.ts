/**
 * Orama 3, in-process. Settings closest to the engine: BM25 relevance with
 * k 0.6, b 0.75, d 0, title boosted 0.25, threshold 1 (documents matching any
 * query term, as the others do; Orama's default keeps only those matching all),
 * whole-term matching (Orama looks terms up as prefixes, so "cell" would also
 * find "cellular"; its `exact` option is a case-sensitive filter on the raw text
 * instead, so every term gets a terminator that no other term extends),
 * the engine's analyser as tokenizer. Orama's own design stays: a term counts
 * once per field (its tokenizer returns distinct tokens and tf is 1/length),
 * every match is scored, and date and type are schema fields for `where`.
 * The index is persisted with Orama's save()/load() as MessagePack.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Packr } from 'msgpackr';
import { analyzeUnique } from '../../../src/search/analysis/analyzer.js';
import { BM25, type FieldMode } from '../lib/config.js';
import { readRows } from '../lib/docs.js';
import { importPeerPackage } from './optional-import.js';
import { dateNumber, packageVersion, type Filter, type NodePeer } from './peer.js';

interface Hit {
  document: { article: string };
}
interface OramaModule {
  create(options: unknown): unknown;
  insertMultiple(db: unknown, docs: unknown[], batchSize?: number): Promise<unknown> | unknown;
  search(db: unknown, params: unknown): Promise<{ hits: Hit[] }> | { hits: Hit[] };
  save(db: unknown): unknown;
  load(db: unknown, raw: unknown): void;
}

const INDEX_FILE = 'orama.msgpack';
// Orama's index holds maps of more than 65,535 keys on large corpora.
const packr = new Packr({ variableMapSize: true });

export class OramaPeer implements NodePeer {
  private orama: OramaModule | null = null;
  private db: unknown = null;
  private mode: FieldMode = 'split';

  private async create(): Promise<unknown> {
    this.orama ??= await importPeerPackage<OramaModule>('@orama/orama');
    return this.orama.create({
      schema: { text: 'string', title: 'string', article: 'string', date: 'number', type: 'enum' },
      components: {
        tokenizer: { language: 'english', normalizationCache: new Map(), tokenize: (raw: string) => analyzeUnique(raw).map((t) => `${t}$`) },
      },
    });
  }

  async build(corpusFile: string, indexDir: string, mode: FieldMode): Promise<void> {
    const db = await this.create();
    let batch: unknown[] = [];
    let id = 0;
    for await (const row of readRows(corpusFile)) {
      const text = mode === 'merged' ? `${row.title} ${row.text}` : row.text;
      batch.push({ id: String(id++), text, title: mode === 'merged' ? '' : row.title, article: row.article, date: dateNumber(row.date), type: row.type });
      if (batch.length === 10_000) {
        await this.orama!.insertMultiple(db, batch, 10_000);
        batch = [];
      }
    }
    if (batch.length) await this.orama!.insertMultiple(db, batch, 10_000);
    await mkdir(indexDir, { recursive: true });
    await writeFile(path.join(indexDir, INDEX_FILE), packr.pack({ mode, raw: this.orama!.save(db) }));
  }

  async open(indexDir: string): Promise<void> {
    const { mode, raw } = packr.unpack(await readFile(path.join(indexDir, INDEX_FILE))) as { mode: FieldMode; raw: unknown };
    this.db = await this.create();
    this.orama!.load(this.db, raw);
    this.mode = mode;
  }

  private async hits(query: string, k: number, filter: Filter | null): Promise<Hit[]> {
    const result = await this.orama!.search(this.db, {
      term: query,
      properties: this.mode === 'split' ? ['text', 'title'] : ['text'],
      boost: this.mode === 'split' ? { title: BM25.titleWeight } : {},
      relevance: { k: BM25.k1, b: BM25.b, d: 0 },
      threshold: 1,
      limit: k,
      ...(filter ? { where: { date: { between: [filter.from, filter.to] }, type: { eq: filter.type } } } : {}),
    });
    return result.hits;
  }

  async search(query: string, k: number, filter: Filter | null): Promise<number> {
    return (await this.hits(query, k, filter)).length;
  }

  async rank(query: string, k: number): Promise<string[]> {
    return [...new Set((await this.hits(query, k, null)).map((h) => h.document.article))];
  }

  versions(): Record<string, string> {
    return { orama: packageVersion('@orama/orama') };
  }

  async close(): Promise<void> {
    this.db = null;
  }
}
