/**
 * Scale benchmark of the engine (no HTTP): builds an index of a generated
 * corpus (default 1M paragraphs; PARAGRAPHS=N to change), then measures build
 * time and peak RSS, index bytes on disk and in memory, load time, latency
 * percentiles of 1-, 2- and 4-term queries with and without a filter, and
 * throughput on one thread versus the worker pool.
 *
 *   npm run bench:scale            (PARAGRAPHS=100000 npm run bench:scale for a quick run)
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FilterSpec } from '../src/search/query/filter-spec.js';
import type { Searcher as SearcherType } from '../src/search/searcher.js';
import { analyzeUnique } from '../src/search/analysis/analyzer.js';
import { loadConfig } from '../src/config.js';
import { createProgress } from '../src/progress.js';
import { random, sentenceSource, syntheticArticles } from './lib/synthetic-corpus.js';
import { machine, mib, rssSampler, summarize, writeResults } from './lib/stats.js';
import { buildCompiled, compiledModule } from './lib/compiled.js';
import { count } from './lib/settings.js';

// The engine as `npm start` runs it: compiled (bench/lib/compiled.ts).
buildCompiled();
const { IndexWriter } = await compiledModule<typeof import('../src/search/index-writer.js')>('search/index-writer.js');
const { Searcher } = await compiledModule<typeof import('../src/search/searcher.js')>('search/searcher.js');
const { compileFilterSpec } = await compiledModule<typeof import('../src/search/query/filter-spec.js')>('search/query/filter-spec.js');

const PARAGRAPHS = count('PARAGRAPHS', 1_000_000);
const QUERIES_PER_SET = count('QUERIES', 300);
const WORK_DIR = path.resolve('bench', '.work', `scale-${PARAGRAPHS}`);
const config = loadConfig([], {});
const searchOptions = { k1: config.bm25K1, b: config.bm25B, titleWeight: config.titleWeight, filterCacheSize: 64 };

/** Bytes of the files in `dir` whose name ends with `suffix` (every file when omitted). */
async function directoryBytes(dir: string, suffix = ''): Promise<number> {
  let total = 0;
  for (const file of await readdir(dir)) if (file.endsWith(suffix)) total += (await stat(path.join(dir, file))).size;
  return total;
}

async function build(source: ReturnType<typeof sentenceSource>) {
  await rm(WORK_DIR, { recursive: true, force: true });
  await mkdir(WORK_DIR, { recursive: true });
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  const sampler = rssSampler();
  const progress = createProgress('build', 'items');
  const started = performance.now();
  const writer = await IndexWriter.open(WORK_DIR, { maxSegmentBytes: 256 * 1024 * 1024 });
  let paragraphs = 0;
  for (const article of syntheticArticles(PARAGRAPHS, source)) {
    await writer.add(article);
    paragraphs += article.paragraphs.length;
    if (paragraphs % 10_000 < article.paragraphs.length) progress.update(paragraphs, PARAGRAPHS);
  }
  await writer.commit();
  progress.stop();
  const seconds = (performance.now() - started) / 1000;
  const peak = sampler.stop();
  return { seconds, peakRssMiB: mib(peak), peakAboveBaselineMiB: mib(peak - baseline) };
}

function querySets(source: ReturnType<typeof sentenceSource>): Record<string, string[]> {
  const rand = random(7);
  const make = (terms: number) =>
    Array.from({ length: QUERIES_PER_SET }, () => {
      const words = new Set<string>();
      while (words.size < terms) {
        const candidates = analyzeUnique(source.sentence(rand));
        if (candidates.length > 0) words.add(candidates[Math.floor(rand() * candidates.length)]!);
      }
      return [...words].join(' ');
    });
  return { '1 term': make(1), '2 terms': make(2), '4 terms': make(4) };
}

async function latency(searcher: SearcherType, queries: string[], k: number, filter: FilterSpec) {
  for (const q of queries.slice(0, 30)) await searcher.search(q, k, filter); // warm-up, excluded
  const times: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await searcher.search(q, k, filter);
    times.push(performance.now() - t);
  }
  return summarize(times);
}

async function throughput(searcher: SearcherType, queries: string[], k: number, concurrency: number) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < queries.length) await searcher.search(queries[next++]!, k, compileFilterSpec({}));
    }),
  );
  return queries.length / ((performance.now() - started) / 1000);
}

async function main() {
  const source = sentenceSource();
  const loadAverageAtStart = loadavg();
  process.stderr.write(`scale benchmark: ${PARAGRAPHS} paragraphs, sentences from ${source.kind}\n`);
  // REUSE_INDEX=1 skips the build (to iterate on query speed); build figures are then left out.
  const reuse = process.env.REUSE_INDEX === '1' && existsSync(path.join(WORK_DIR, 'manifest.json'));
  const buildResult = reuse ? null : await build(source);
  if (buildResult) process.stderr.write(`built in ${buildResult.seconds.toFixed(1)}s\n`);

  global.gc?.();
  const rssBeforeLoad = process.memoryUsage().rss;
  let started = performance.now();
  const single = await Searcher.open(WORK_DIR, { ...searchOptions, threads: 0 });
  const loadSeconds = (performance.now() - started) / 1000;
  const inMemoryMiB = mib(single.snapshot.segments.reduce((s, x) => s + x.segment.buffer.byteLength, 0));
  // Read per term on first use (segment/postings-pager.ts), not at load.
  const pagedMiB = mib(single.snapshot.segments.reduce((s, x) => s + x.segment.fields.text.postings.byteLength + x.segment.fields.title.postings.byteLength, 0));
  // In the JSON only: this process built the index, so freed build memory can make the difference negative.
  const rssAfterLoadMiB = mib(process.memoryUsage().rss - rssBeforeLoad);

  const sets = querySets(source);
  const filter = compileFilterSpec({ date_from: '2010-01-01', date_to: '2020-12-31', article_types: ['research-article'] });
  const noFilter = compileFilterSpec({});
  const latencies: Record<string, unknown>[] = [];
  for (const [name, queries] of Object.entries(sets)) {
    for (const k of [10, 100]) {
      for (const [filterName, spec] of [['none', noFilter], ['date+type', filter]] as const) {
        const result = await latency(single, queries, k, spec);
        latencies.push({ queries: name, k, filter: filterName, ...result });
        process.stderr.write(`${name} k=${k} filter=${filterName}: p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms\n`);
      }
    }
  }
  const mixed = [...sets['1 term']!, ...sets['2 terms']!, ...sets['4 terms']!];
  const singleQps = await throughput(single, mixed, 100, 1);
  await single.close();

  const threads = availableParallelism();
  started = performance.now();
  const pooled = await Searcher.open(WORK_DIR, { ...searchOptions, threads });
  const poolLoadSeconds = (performance.now() - started) / 1000;
  await throughput(pooled, mixed.slice(0, 60), 100, threads * 2); // warm-up
  const pooledQps = await throughput(pooled, mixed, 100, threads * 2);
  const pooledLatency = await latency(pooled, sets['2 terms']!, 100, noFilter);
  await pooled.close();

  const results = {
    date: new Date().toISOString(),
    machine: machine(),
    corpus: { paragraphs: PARAGRAPHS, sentences: source.kind },
    bm25: searchOptions,
    build: buildResult,
    load: { seconds: loadSeconds, inMemoryMiB, pagedMiB, rssAfterLoadMiB, poolLoadSeconds },
    disk: { totalMiB: mib(await directoryBytes(WORK_DIR)), storedMiB: mib(await directoryBytes(WORK_DIR, '.stored')) },
    loadAverage: { atStart: loadAverageAtStart, atEnd: loadavg() },
    latency: latencies,
    throughput: { singleThreadQps: singleQps, pool: { threads, qps: pooledQps, twoTermTop100: pooledLatency } },
  };
  const row = (l: Record<string, unknown>) =>
    `| ${l.queries} | ${l.k} | ${l.filter} | ${(l.p50 as number).toFixed(2)} | ${(l.p99 as number).toFixed(2)} | ${(l.mean as number).toFixed(2)} |`;
  const markdown = [
    `# Engine scale benchmark`,
    '',
    `${PARAGRAPHS.toLocaleString('en')} paragraphs (sentences from ${source.kind}), ${results.date}, Node ${process.version}, ${threads} cores,`,
    `load average (1, 5, 15 min) ${results.loadAverage.atStart.map((l) => l.toFixed(1)).join(', ')} at the start and ${results.loadAverage.atEnd.map((l) => l.toFixed(1)).join(', ')} at the end`,
    '(the machine is shared: above the core count, other work competed for the cores throughout).',
    '',
    `| measure | value |`,
    `| --- | --- |`,
    ...(buildResult
      ? [
          `| build time | ${buildResult.seconds.toFixed(1)} s |`,
          `| build peak RSS (above baseline) | ${buildResult.peakRssMiB.toFixed(0)} MiB (${buildResult.peakAboveBaselineMiB.toFixed(0)} MiB) |`,
        ]
      : ['| build | not measured (REUSE_INDEX=1) |']),
    `| index on disk | ${results.disk.totalMiB.toFixed(0)} MiB |`,
    `| of which stored fields (\`.stored\`, read on demand) | ${results.disk.storedMiB.toFixed(0)} MiB |`,
    `| index in memory (segment buffers) | ${inMemoryMiB.toFixed(0)} MiB, of which ${pagedMiB.toFixed(0)} MiB of postings paged in per term on first use |`,
    `| load time (main thread / with ${threads}-thread pool) | ${loadSeconds.toFixed(2)} s / ${poolLoadSeconds.toFixed(2)} s |`,
    `| throughput, top-100, 1 thread | ${singleQps.toFixed(0)} queries/s |`,
    `| throughput, top-100, pool of ${threads} | ${pooledQps.toFixed(0)} queries/s |`,
    `| 2-term top-100 through the pool | p50 ${pooledLatency.p50.toFixed(2)} ms, p99 ${pooledLatency.p99.toFixed(2)} ms |`,
    '',
    `Single-thread latency (ms), ${QUERIES_PER_SET} queries per set, warm-up excluded; filter = date 2010-2020 and type research-article:`,
    '',
    `| queries | k | filter | p50 | p99 | mean |`,
    `| --- | --- | --- | --- | --- | --- |`,
    ...latencies.map(row),
    '',
  ].join('\n');
  await writeResults(PARAGRAPHS === 1_000_000 ? 'scale' : `scale-${PARAGRAPHS}`, results, markdown);
  process.stdout.write(markdown);
}

await main();
