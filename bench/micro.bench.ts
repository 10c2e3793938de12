/**
 * Micro-benchmarks (tinybench): text analysis, segment build, and a single
 * query on a small generated index. Results go to bench/results/micro.*.
 *
 *   npm run bench
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import { analyze } from '../src/search/analysis/analyzer.js';
import { SegmentBuilder } from '../src/search/segment/writer.js';
import { IndexWriter } from '../src/search/index-writer.js';
import { Searcher } from '../src/search/searcher.js';
import { compileFilterSpec } from '../src/search/query/filter-spec.js';
import { loadConfig } from '../src/config.js';
import { random, sentenceSource, syntheticArticles } from './lib/synthetic-corpus.js';
import { machine, writeResults } from './lib/stats.js';

const source = sentenceSource();
const rand = random(3);
const paragraph = Array.from({ length: 5 }, () => source.sentence(rand)).join(' ');
const articles = [...syntheticArticles(1_000, source, 11)];
const work = await mkdtemp(path.join(tmpdir(), 'litserve-micro-'));
const indexDir = path.join(work, 'index');
const writer = await IndexWriter.open(indexDir);
for (const article of syntheticArticles(50_000, source, 12)) await writer.add(article);
await writer.commit();
const config = loadConfig([], {});
const searcher = await Searcher.open(indexDir, { threads: 0, k1: config.bm25K1, b: config.bm25B, titleWeight: config.titleWeight, filterCacheSize: 16 });
const noFilter = compileFilterSpec({});
const filter = compileFilterSpec({ date_from: '2010-01-01', article_types: ['research-article'] });

let segmentCounter = 0;
const bench = new Bench({ time: 2000, warmupTime: 500 });
bench
  .add(`analyze one paragraph (${paragraph.length} chars)`, () => {
    analyze(paragraph);
  })
  .add('build + write a segment of 1,000 articles', async () => {
    const builder = new SegmentBuilder();
    for (const article of articles) builder.addArticle(article);
    await builder.write(path.join(work, `micro-${segmentCounter++}.seg`));
  })
  .add('2-term query, top-10, 50k paragraphs', async () => {
    await searcher.search('cell protein', 10, noFilter);
  })
  .add('2-term query, top-100, 50k paragraphs, date+type filter', async () => {
    await searcher.search('cell protein', 100, filter);
  })
  .add('article count with topic + region filters (cached bitsets)', () => {
    searcher.countArticles(compileFilterSpec({ topics: ['protein'], regions: ['cell', 'tumor'] }));
  });

await bench.run();
await searcher.close();
await rm(work, { recursive: true, force: true });

const rows = bench.tasks.map((task) => {
  const result = task.result as { latency?: { mean: number; p50?: number; p99?: number }; throughput?: { mean: number } } | undefined;
  return {
    name: task.name,
    meanMs: result?.latency?.mean ?? NaN,
    p99Ms: result?.latency?.p99 ?? NaN,
    opsPerSecond: result?.throughput?.mean ?? NaN,
  };
});
const markdown = [
  '# Micro-benchmarks (tinybench)',
  '',
  `Sentences from ${source.kind}; ${new Date().toISOString()}, Node ${process.version}.`,
  '',
  '| task | mean (ms) | p99 (ms) | ops/s |',
  '| --- | --- | --- | --- |',
  ...rows.map((r) => `| ${r.name} | ${r.meanMs.toFixed(3)} | ${r.p99Ms.toFixed(3)} | ${r.opsPerSecond.toFixed(0)} |`),
  '',
].join('\n');
await writeResults('micro', { machine: machine(), rows }, markdown);
process.stdout.write(markdown);
