/**
 * `npm run bench:stored`: the layouts of the stored-fields file on the
 * generated corpus of bench:peers (PEERS_PARAGRAPHS, default 200,000): file
 * size, write time, and the time to assemble a /retrieval/-shaped response of
 * k random paragraphs (their article fragments and paragraph fragments copied
 * into one Buffer): plain positional reads, fragments coded with a token table
 * (decoded per hit), and deflated 16 KiB chunks with the default chunk cache.
 * Layouts are measured interleaved, round after round (STORED_ROUNDS, default 100).
 * Writes bench/results/stored.{json,md}.
 */
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { StoredFieldsBuilder } from '../src/search/stored/writer.js';
import { StoredFields, DEFAULT_CHUNK_CACHE_BYTES } from '../src/search/stored/reader.js';
import type { StoredCompression } from '../src/search/stored/format.js';
import { ensureCorpusFile, readArticles } from './peers/lib/docs.js';
import { RESULTS_DIR, machine, summarize } from './lib/stats.js';
import { random } from '../scripts/lib/random.js';
import { count } from './lib/settings.js';

const paragraphs = count('PEERS_PARAGRAPHS', 200_000);
const rounds = count('STORED_ROUNDS', 100);
const workDir = path.resolve('bench', '.work', 'stored');
const corpusFile = path.resolve('bench', '.work', 'peers', `generated-${paragraphs}.tsv`);
await ensureCorpusFile(corpusFile, 'generated', paragraphs);
await rm(workDir, { recursive: true, force: true });
await mkdir(workDir, { recursive: true });

const builder = new StoredFieldsBuilder();
const paragraphArticle: number[] = [];
let articles = 0;
for await (const article of readArticles(corpusFile, false)) {
  builder.addArticle(article);
  for (let i = 0; i < article.paragraphs.length; i++) paragraphArticle.push(articles);
  articles++;
}

const layouts: StoredCompression[] = ['none', 'dictionary', 'deflate'];
const opened = new Map<StoredCompression, StoredFields>();
const sizes: Record<string, number> = {};
const writeSeconds: Record<string, number> = {};
for (const layout of layouts) {
  const file = path.join(workDir, `${layout}.stored`);
  const started = performance.now();
  await builder.write(file, layout);
  writeSeconds[layout] = (performance.now() - started) / 1000;
  sizes[layout] = (await stat(file)).size;
  process.stderr.write(`${layout}: ${(sizes[layout]! / 1048576).toFixed(1)} MiB, written in ${writeSeconds[layout]!.toFixed(1)} s\n`);
  opened.set(layout, StoredFields.open(file));
}

/** The /retrieval/ body work: sizes from the tables, then every fragment copied into one Buffer. */
function assemble(stored: StoredFields, hits: number[]): number {
  let size = 0;
  for (const p of hits) size += stored.articleLength(paragraphArticle[p]!) + stored.paragraphLength(p) + 40;
  const body = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of hits) {
    const article = paragraphArticle[p]!;
    const paragraphAt = at + stored.articleLength(article);
    stored.copyArticleAndParagraph(article, p, body, at, paragraphAt);
    at = paragraphAt + stored.paragraphLength(p) + 40;
  }
  return at;
}

const results: { k: number; layout: StoredCompression; p50: number; p99: number; meanMicrosPerHit: number }[] = [];
for (const k of [100, 1000]) {
  const rand = random(k);
  const times = new Map<StoredCompression, number[]>(layouts.map((l) => [l, []]));
  for (let r = 0; r < rounds; r++) {
    const hits = Array.from({ length: k }, () => Math.floor(rand() * paragraphArticle.length));
    for (const layout of r % 2 ? layouts : [...layouts].reverse()) {
      const started = performance.now();
      assemble(opened.get(layout)!, hits);
      times.get(layout)!.push(performance.now() - started);
    }
  }
  for (const layout of layouts) {
    const { p50, p99 } = summarize(times.get(layout)!);
    const meanMicrosPerHit = (1000 * times.get(layout)!.reduce((sum, t) => sum + t, 0)) / (rounds * k);
    results.push({ k, layout, p50, p99, meanMicrosPerHit });
    process.stderr.write(`k=${k} ${layout}: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms\n`);
  }
}
for (const stored of opened.values()) stored.close();
await rm(workDir, { recursive: true, force: true });

const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
const rows = results.map((r) => `| ${r.k} | ${r.layout} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.meanMicrosPerHit.toFixed(1)} |`);
const sizeRows = layouts.map((l) => `| ${l} | ${mib(sizes[l]!)} | ${(sizes[l]! / sizes.none!).toFixed(2)}× | ${writeSeconds[l]!.toFixed(1)} |`);
const md = `# Stored fields: plain, token-coded and deflated layouts

\`npm run bench:stored\`, ${new Date().toISOString().slice(0, 10)}, generated corpus of ${paragraphs.toLocaleString('en')} paragraphs
(${articles.toLocaleString('en')} articles), ${rounds} responses of k uniformly random paragraphs per cell, layouts interleaved;
dictionary: one token table per file, each fragment coded on its own; deflated: 16 KiB chunks, chunk cache ${DEFAULT_CHUNK_CACHE_BYTES / 1048576} MiB.
Machine: ${machine().cpu}, ${machine().cores} cores (shared), load average ${loadavg()[0]!.toFixed(1)} at the end of the run.

| layout | file size MiB | ÷ none | write s |
| --- | --- | --- | --- |
${sizeRows.join('\n')}

Time to assemble one response body (article + paragraph fragments of k hits), ms, and its mean per hit, µs:

| k | layout | p50 | p99 | µs per hit |
| --- | --- | --- | --- | --- |
${rows.join('\n')}
`;
await writeFile(path.join(RESULTS_DIR, 'stored.md'), md);
await writeFile(path.join(RESULTS_DIR, 'stored.json'), JSON.stringify({ date: new Date().toISOString(), paragraphs, articles, rounds, sizes, writeSeconds, loadAverage: loadavg(), results }, null, 2));
process.stderr.write(md);
