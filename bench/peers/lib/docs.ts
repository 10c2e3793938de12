/**
 * The one corpus file every peer indexes: tab-separated, one paragraph a line,
 *   paragraph id, article id, date (YYYY-MM-DD), article type, title, text
 * with tabs and line breaks in text turned into spaces. A flat text format
 * because the Java and Python peers read it without a JSON library, and because
 * every peer then spends the same effort reading its input.
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import type { ArticleInput } from '../../../src/corpus/model.js';
import { parseBeirLine } from '../../../src/corpus/readers/beir.js';
import { READ_CHUNK_BYTES } from '../../../src/corpus/readers/input.js';
import { SCIFACT_DIR, TYPES, random, sentenceSource, syntheticArticles } from '../../lib/synthetic-corpus.js';

export interface DocRow {
  id: string;
  article: string;
  date: string;
  type: string;
  title: string;
  text: string;
}

const flat = (s: string) => s.replace(/[\t\r\n]+/g, ' ');

export function rowLine(row: DocRow): string {
  return [row.id, row.article, row.date, row.type, flat(row.title), flat(row.text)].join('\t') + '\n';
}

export function parseRowLine(line: string): DocRow {
  const [id, article, date, type, title, text] = line.split('\t');
  if (text === undefined) throw new Error(`bad corpus line: ${line.slice(0, 80)}`);
  return { id: id!, article: article!, date: date!, type: type!, title: title!, text };
}

function* rowsOf(article: ArticleInput): Generator<DocRow> {
  for (const [p, paragraph] of article.paragraphs.entries()) {
    yield { id: `${article.article_id}:${p}`, article: article.article_id, date: article.date ?? '', type: article.article_type, title: article.title, text: paragraph.text };
  }
}

/**
 * SciFact abstracts as one paragraph each. BEIR carries no dates or types, so
 * each document gets a deterministic made-up date and type: the filtered speed
 * figures need them, quality never uses them.
 */
async function* scifactArticles(): AsyncGenerator<ArticleInput> {
  const rand = random(2024);
  const lines = readline.createInterface({ input: createReadStream(path.join(SCIFACT_DIR, 'corpus.jsonl')), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const parsed = parseBeirLine(line);
    if ('error' in parsed) throw new Error(`SciFact corpus: ${parsed.error}`);
    const year = 2000 + Math.floor(rand() * 26);
    const month = 1 + Math.floor(rand() * 12);
    yield { ...parsed.article, date: `${year}-${String(month).padStart(2, '0')}-15`, article_type: TYPES[Math.floor(rand() * TYPES.length)]! };
  }
}

/** Writes the corpus file once (kept between runs: generation of 1M paragraphs takes minutes). */
export async function ensureCorpusFile(file: string, corpus: 'scifact' | 'generated', paragraphs: number): Promise<void> {
  if (existsSync(file)) return;
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const out = createWriteStream(tmp);
  const articles = corpus === 'scifact' ? scifactArticles() : syntheticArticles(paragraphs, sentenceSource());
  let written = 0;
  for await (const article of articles) {
    for (const row of rowsOf(article)) {
      if (!out.write(rowLine(row))) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      if (++written % 100_000 === 0) process.stderr.write(`  corpus ${corpus}: ${written.toLocaleString('en')} paragraphs written\n`);
    }
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  await rename(tmp, file);
}

/**
 * In the ingest's chunks (READ_CHUNK_BYTES says why): with the default 64 KiB,
 * readline over the 1M corpus took 11.5 s instead of 4.0 s (465k against 20k
 * page faults), time every Node peer's build paid for the harness.
 */
export async function* readRows(file: string): AsyncGenerator<DocRow> {
  const lines = readline.createInterface({ input: createReadStream(file, { highWaterMark: READ_CHUNK_BYTES }), crlfDelay: Infinity });
  for await (const line of lines) if (line) yield parseRowLine(line);
}

/** Rows regrouped into articles (rows of one article are consecutive), for the engine's writer. */
export async function* readArticles(file: string, merged: boolean): AsyncGenerator<ArticleInput> {
  let current = null as ArticleInput | null;
  for await (const row of readRows(file)) {
    if (current?.article_id !== row.article) {
      if (current) yield current;
      current = {
        article_id: row.article,
        // Merged layout: the title travels inside every paragraph's text, the title field stays empty.
        title: merged ? '' : row.title,
        authors: [],
        article_doi: null,
        pubmed_id: null,
        date: row.date || null,
        article_type: row.type,
        journal_issn: null,
        journal_name: null,
        cited_by: 0,
        impact_factor: null,
        paragraphs: [],
      };
    }
    // The first paragraph is the abstract, as in the generated corpus (the API returns each hit's article abstract).
    const section = current.paragraphs.length === 0 ? 'Abstract' : 'Body';
    current.paragraphs.push({ section, text: merged ? `${row.title} ${row.text}` : row.text });
  }
  if (current) yield current;
}
