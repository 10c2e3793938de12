/**
 * `node --import tsx bench/served-hop.ts INDEX_DIR`: what running short queries
 * on the calling thread buys (SearcherOptions.inlinePostings, the server's
 * setting). Two searchers with the server's pool of 2 threads, one sending
 * every query to the pool, one keeping queries under SERVED_INLINE_POSTINGS on
 * the calling thread; the same queries interleaved, p50 per query set and k.
 *   HOP_QUERIES  queries per set (default 60)     HOP_ROUNDS  passes (default 3)
 */
import { performance } from 'node:perf_hooks';
import { Searcher } from '../src/search/searcher.js';
import { SERVED_INLINE_POSTINGS } from '../src/search/defaults.js';
import { compileFilterSpec } from '../src/search/query/filter-spec.js';
import { summarize } from './lib/stats.js';
import { BM25, K_VALUES } from './peers/lib/config.js';
import { querySets } from './peers/lib/queries.js';
import { count } from './lib/settings.js';

const indexDir = process.argv[2];
if (!indexDir) throw new Error('usage: served-hop.ts INDEX_DIR');
const queryCount = count('HOP_QUERIES', 60);
const rounds = count('HOP_ROUNDS', 3);

const options = { threads: 2, k1: BM25.k1, b: BM25.b, titleWeight: BM25.titleWeight, filterCacheSize: 64 };
const pooled = await Searcher.open(indexDir, options);
const inline = await Searcher.open(indexDir, { ...options, inlinePostings: SERVED_INLINE_POSTINGS });
await Promise.all([pooled.warm(), inline.warm()]);
const spec = compileFilterSpec({});
const sets = await querySets(queryCount);
const lines = ['| queries | k | every query pooled, p50 ms | short ones inline, p50 ms | inline ÷ pooled |', '| --- | --- | --- | --- | --- |'];
for (const [set, queries] of Object.entries(sets)) {
  for (const k of K_VALUES) {
    const times = { pooled: [] as number[], inline: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      for (const query of queries) {
        for (const [name, searcher] of [['pooled', pooled], ['inline', inline]] as const) {
          const started = performance.now();
          await searcher.search(query, k, spec);
          times[name].push(performance.now() - started);
        }
      }
    }
    const [a, b] = [summarize(times.pooled).p50, summarize(times.inline).p50];
    lines.push(`| ${set} | ${k} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(2)}× |`);
    process.stderr.write(`${lines.at(-1)}\n`);
  }
}
await Promise.all([pooled.close(), inline.close()]);
console.log(lines.join('\n'));
