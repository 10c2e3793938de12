/**
 * `npm run bench:engine-v2`: the engine before and after issue 9, side by side
 * in one process. "Before" is the engine source of a git revision (default
 * main, ENGINE_BEFORE=<rev>) extracted with `git archive` into the git-ignored
 * work directory; "after" is this checkout. Both build an index of the same
 * generated corpus (the peers' corpus file, ENGINE_PARAGRAPHS, default
 * 200,000), then answer the peers' query sets cell by cell, interleaved and
 * repeated (medians of per-repeat p50s), on the calling thread; then
 * throughput on 2-thread pools. Every answer of both is compared: documents
 * and scores must be identical. Writes bench/results/engine-v2.{json,md}.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureCorpusFile, readArticles } from './peers/lib/docs.js';
import { querySets, type QuerySetName } from './peers/lib/queries.js';
import { BM25, FILTER, K_VALUES } from './peers/lib/config.js';
import { directoryBytes } from './peers/lib/measure.js';
import { machine, mib, percentile, writeResults } from './lib/stats.js';
import { segmentSizes, type IndexSizes } from './lib/segment-sizes.js';
import { packedWords, unpack, unpackLoop } from '../src/search/segment/bitpack.js';
import { BLOCK_SIZE } from '../src/search/segment/format.js';
import { count } from './lib/settings.js';

type SearcherModule = typeof import('../src/search/searcher.js');
type FilterModule = typeof import('../src/search/query/filter-spec.js');
type WriterModule = typeof import('../src/search/index-writer.js');
type Searcher = Awaited<ReturnType<SearcherModule['Searcher']['open']>>;

const PARAGRAPHS = count('ENGINE_PARAGRAPHS', 200_000);
const BEFORE = process.env.ENGINE_BEFORE ?? 'main';
const REPEATS = count('ENGINE_REPEATS', 3);
const QUERIES = count('ENGINE_QUERIES', 200);
/** ENGINE_REUSE=1 keeps the indexes of an earlier run of the same revisions (build times are then not measured). */
const REUSE = process.env.ENGINE_REUSE === '1';
const WORK = path.resolve('bench', '.work', 'engine-v2');
const corpusFile = path.resolve('bench', '.work', 'peers', `generated-${PARAGRAPHS}.tsv`);

interface Variant {
  name: string;
  searcher: Searcher;
  pooled: Searcher;
  filters: FilterModule;
  /** First global paragraph ordinal of each segment. */
  bases: number[];
  /** null when an index of an earlier run was reused (ENGINE_REUSE=1). */
  buildSeconds: number | null;
  indexMiB: number;
}

async function variant(name: string, root: string): Promise<Variant> {
  const writerModule = (await import(path.join(root, 'src/search/index-writer.ts'))) as WriterModule;
  const searcherModule = (await import(path.join(root, 'src/search/searcher.ts'))) as SearcherModule;
  const filters = (await import(path.join(root, 'src/search/query/filter-spec.ts'))) as FilterModule;
  const dir = path.join(WORK, `index-${name}`);
  let buildSeconds: number | null = null;
  if (!(REUSE && existsSync(path.join(dir, 'manifest.json')))) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    process.stderr.write(`${name}: building ${PARAGRAPHS.toLocaleString('en')} paragraphs\n`);
    const started = performance.now();
    const writer = await writerModule.IndexWriter.open(dir, { maxSegmentBytes: 256 * 1024 * 1024 });
    for await (const article of readArticles(corpusFile, false)) await writer.add(article);
    await writer.commit();
    buildSeconds = (performance.now() - started) / 1000;
  }
  const options = { k1: BM25.k1, b: BM25.b, titleWeight: BM25.titleWeight, filterCacheSize: 64 };
  const searcher = await searcherModule.Searcher.open(dir, { ...options, threads: 0 });
  const pooled = await searcherModule.Searcher.open(dir, { ...options, threads: 2 });
  const bases: number[] = [];
  let base = 0;
  for (const { segment } of searcher.snapshot.segments) {
    bases.push(base);
    base += segment.paragraphCount;
  }
  return { name, searcher, pooled, filters, bases, buildSeconds, indexMiB: mib(await directoryBytes(dir)) };
}

const spec = (v: Variant, filtered: boolean) =>
  v.filters.compileFilterSpec(filtered ? { date_from: FILTER.dateFrom, date_to: FILTER.dateTo, article_types: [FILTER.type] } : {});

/** Per-query latencies (ms) of one pass, and the answers as strings for the exactness check. */
async function pass(v: Variant, queries: string[], k: number, filtered: boolean) {
  const filter = spec(v, filtered);
  const millis: number[] = [];
  const answers: string[] = [];
  for (const query of queries) {
    const started = performance.now();
    const hits = await v.searcher.search(query, k, filter);
    millis.push(performance.now() - started);
    // Global ordinals: the two versions cut the corpus into segments at different places.
    answers.push(hits.map((h) => `${v.bases[h.segment]! + h.paragraph}:${h.score}`).join(' '));
  }
  return { p50: percentile(millis.sort((a, b) => a - b), 50), answers };
}

async function throughput(v: Variant, queries: string[], k: number, seconds: number): Promise<number> {
  const filter = spec(v, false);
  for (const q of queries.slice(0, 20)) await v.pooled.search(q, k, filter);
  let next = 0;
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < deadline) {
        await v.pooled.search(queries[next++ % queries.length]!, k, filter);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

await ensureCorpusFile(corpusFile, 'generated', PARAGRAPHS);
const beforeRoot = path.join(WORK, `source-${BEFORE.replace(/[^\w.-]/g, '_')}`);
await rm(beforeRoot, { recursive: true, force: true });
await mkdir(beforeRoot, { recursive: true });
execFileSync('sh', ['-c', `git archive ${JSON.stringify(BEFORE)} src | tar -x -C ${JSON.stringify(beforeRoot)}`]);
const before = await variant(`before (${BEFORE})`, beforeRoot);
const after = await variant('after (this checkout)', process.cwd());
const sets = await querySets(QUERIES);

const latency: { set: QuerySetName; k: number; filtered: boolean; beforeMs: number; afterMs: number; ratio: number; mismatches: number }[] = [];
for (const set of Object.keys(sets) as QuerySetName[]) {
  for (const k of K_VALUES) {
    for (const filtered of [false, true]) {
      const p50s: [number[], number[]] = [[], []];
      let mismatches = 0;
      for (let r = 0; r < REPEATS; r++) {
        // Alternate who goes first, so neither always runs on a warmer machine.
        const order = r % 2 === 0 ? [0, 1] : [1, 0];
        const results = [null, null] as (Awaited<ReturnType<typeof pass>> | null)[];
        for (const i of order) results[i] = await pass(i === 0 ? before : after, sets[set], k, filtered);
        p50s[0].push(results[0]!.p50);
        p50s[1].push(results[1]!.p50);
        if (r === 0) mismatches = results[0]!.answers.filter((answer, q) => answer !== results[1]!.answers[q]).length;
      }
      const row = { set, k, filtered, beforeMs: median(p50s[0]), afterMs: median(p50s[1]), ratio: 0, mismatches };
      row.ratio = row.afterMs / row.beforeMs;
      latency.push(row);
      process.stderr.write(`${set} k=${k}${filtered ? ' filtered' : ''}: ${row.beforeMs.toFixed(2)} -> ${row.afterMs.toFixed(2)} ms (${row.ratio.toFixed(2)}x), ${mismatches} differing answers\n`);
    }
  }
}

const rates: { set: QuerySetName; k: number; before: number; after: number; ratio: number }[] = [];
for (const set of ['scifact', '2 terms'] as QuerySetName[]) {
  for (const k of [10, 1000]) {
    const values: [number[], number[]] = [[], []];
    for (let r = 0; r < REPEATS; r++) {
      values[0].push(await throughput(before, sets[set], k, 3));
      values[1].push(await throughput(after, sets[set], k, 3));
    }
    const row = { set, k, before: median(values[0]), after: median(values[1]), ratio: median(values[1]) / median(values[0]) };
    rates.push(row);
    process.stderr.write(`throughput ${set} k=${k}: ${row.before.toFixed(0)} -> ${row.after.toFixed(0)} q/s\n`);
  }
}
/** ns per posting to decode every full text block of the after index (gaps and tfs), unrolled vs loop, interleaved. */
function decoderTimes(): { unrolledNs: number; loopNs: number } {
  const out = new Int32Array(BLOCK_SIZE);
  const times = { unrolled: [] as number[], loop: [] as number[] };
  const segments = after.searcher.snapshot.segments.map((s) => s.segment);
  for (let round = 0; round < 2 * REPEATS; round++) {
    for (const [name, decode] of [['unrolled', unpack], ['loop', unpackLoop]] as const) {
      let postings = 0;
      const started = performance.now();
      for (const segment of segments) {
        const field = segment.fields.text;
        for (let block = 0; block < field.blockLastDoc.length; block++) {
          const offset = field.blockOffset[block]!;
          const end = field.blockOffset[block + 1]!;
          const docBits = field.blockDocBits[block]!;
          const freqBits = field.blockFreqBits[block]!;
          // Full blocks only: their size is exactly the packed size of 128 values.
          if (end - offset !== packedWords(BLOCK_SIZE, docBits) + packedWords(BLOCK_SIZE, freqBits)) continue;
          decode(field.postings, offset, docBits, BLOCK_SIZE, out);
          decode(field.postings, offset + packedWords(BLOCK_SIZE, docBits), freqBits, BLOCK_SIZE, out);
          postings += BLOCK_SIZE;
        }
      }
      times[name].push(((performance.now() - started) * 1e6) / postings);
    }
  }
  return { unrolledNs: median(times.unrolled), loopNs: median(times.loop) };
}
const decoders = decoderTimes();
const sizes = await segmentSizes(path.join(WORK, 'index-after (this checkout)'));
const sizesBefore = await segmentSizes(path.join(WORK, `index-${before.name}`));
for (const v of [before, after]) {
  await v.searcher.close();
  await v.pooled.close();
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);
const markdown = [
  `# Engine before/after issue 9 (${PARAGRAPHS.toLocaleString('en')} generated paragraphs, one run)`,
  '',
  `Before: \`${BEFORE}\` (git archive of its src/); after: this checkout. Same corpus, same queries, same BM25 settings ` +
    `(k1 ${BM25.k1}, b ${BM25.b}, title weight ${BM25.titleWeight}). Latency on the calling thread, p50 per pass, median of ` +
    `${REPEATS} interleaved passes. The machine is shared: only the ratios of this one run count.`,
  '',
  `Build: ${before.buildSeconds === null || after.buildSeconds === null ? 'not measured (indexes of an earlier run reused)' : `${fmt(before.buildSeconds, 1)} s -> ${fmt(after.buildSeconds, 1)} s`}. Index on disk: ${fmt(before.indexMiB, 1)} MiB -> ` +
    `${fmt(after.indexMiB, 1)} MiB (after: searchable part ${fmt(sizes.searchableMiB, 1)} MiB, stored part ${fmt(sizes.storedMiB, 1)} MiB).`,
  '',
  '| queries | k | filter | before p50 ms | after p50 ms | after ÷ before | differing answers |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...latency.map((r) => `| ${r.set} | ${r.k} | ${r.filtered ? 'date+type' : 'none'} | ${fmt(r.beforeMs)} | ${fmt(r.afterMs)} | ${fmt(r.ratio)}× | ${r.mismatches} |`),
  '',
  'Index parts (MiB) before and after: postings and block metadata of each field, the rest grouped:',
  '',
  '| part | before | after |',
  '| --- | --- | --- |',
  ...partRows(sizesBefore, sizes),
  '',
  `Decoding the full text blocks of the after index (doc gaps and tfs), ns per posting, median of ${2 * REPEATS} interleaved ` +
    `rounds: unrolled decoders ${fmt(decoders.unrolledNs)}, generic loop ${fmt(decoders.loopNs)}.`,
  '',
  'Throughput, 2-thread pools, 4 queries in flight, 3 s per pass:',
  '',
  '| queries | k | before q/s | after q/s | after ÷ before |',
  '| --- | --- | --- | --- | --- |',
  ...rates.map((r) => `| ${r.set} | ${r.k} | ${fmt(r.before, 0)} | ${fmt(r.after, 0)} | ${fmt(r.ratio)}× |`),
  '',
].join('\n');
await writeResults(
  'engine-v2',
  { date: new Date().toISOString(), machine: machine(), paragraphs: PARAGRAPHS, before: BEFORE, latency, rates, sizes, sizesBefore, decoders },
  markdown,
);

function partRows(a: IndexSizes, b: IndexSizes): string[] {
  const names = [...new Set([...Object.keys(a.parts), ...Object.keys(b.parts)])].sort();
  const rows = names.map((name) => `| ${name} | ${fmt(a.parts[name] ?? 0)} | ${fmt(b.parts[name] ?? 0)} |`);
  rows.push(`| **searchable** | ${fmt(a.searchableMiB, 1)} | ${fmt(b.searchableMiB, 1)} |`, `| **stored** | ${fmt(a.storedMiB, 1)} | ${fmt(b.storedMiB, 1)} |`);
  return rows;
}
