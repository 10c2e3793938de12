/**
 * `node --import tsx bench/cell-probe.ts INDEX_DIR [DIST_DIR ...]`: p50 per
 * bench:peers cell (query set × k × filter) of the compiled engine on the
 * calling thread, for one or more builds of dist/ over the same index, the
 * builds interleaved cell by cell. How docs/DESIGN.md's "What engine v2
 * bought" rows were measured: copy dist/ aside before a change (say to
 * .before-dist, inside the checkout so node_modules resolve; .gitignore keeps
 * such copies out of commits), rebuild, then
 * compare `... INDEX_DIR .before-dist dist`. The index is one of bench:peers
 * (bench/.work/peers/indexes/engine-generated-*-split).
 *   PROBE_SETS     query sets (default "1 term,2 terms,4 terms,scifact")
 *   PROBE_KS       k values (default 10,100,1000)
 *   PROBE_QUERIES  queries per set (default 100)   PROBE_ROUNDS  timed passes over them (default 2)
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { summarize } from './lib/stats.js';
import { BM25, FILTER } from './peers/lib/config.js';
import { querySets, type QuerySetName } from './peers/lib/queries.js';
import { count, counts } from './lib/settings.js';

type SearcherModule = typeof import('../src/search/searcher.js');
type FilterModule = typeof import('../src/search/query/filter-spec.js');

const [indexDir, ...distDirs] = process.argv.slice(2);
if (!indexDir) throw new Error('usage: cell-probe.ts INDEX_DIR [DIST_DIR ...] (default DIST_DIR: dist)');
const builds = distDirs.length > 0 ? distDirs : ['dist'];
const setNames = (process.env.PROBE_SETS ?? '1 term,2 terms,4 terms,scifact').split(',') as QuerySetName[];
const ks = counts('PROBE_KS', [10, 100, 1000]);
const rounds = count('PROBE_ROUNDS', 2);

const load = async <T>(dist: string, module: string) => (await import(pathToFileURL(path.resolve(dist, module)).href)) as T;
const engines = await Promise.all(
  builds.map(async (dist) => {
    const { Searcher } = await load<SearcherModule>(dist, 'search/searcher.js');
    const { compileFilterSpec } = await load<FilterModule>(dist, 'search/query/filter-spec.js');
    const searcher = await Searcher.open(indexDir, { threads: 0, k1: BM25.k1, b: BM25.b, titleWeight: BM25.titleWeight, filterCacheSize: 64 });
    const filters = {
      none: compileFilterSpec({}),
      'date+type': compileFilterSpec({ date_from: FILTER.dateFrom, date_to: FILTER.dateTo, article_types: [FILTER.type] }),
    };
    return { dist, searcher, filters };
  }),
);
const sets = await querySets(count('PROBE_QUERIES', 100));

console.log(`| queries | k | filter | ${builds.map((b) => `${b} p50 ms`).join(' | ')} |`);
console.log(`| --- | --- | --- | ${builds.map(() => '---').join(' | ')} |`);
for (const name of setNames) {
  for (const k of ks) {
    for (const filter of ['none', 'date+type'] as const) {
      const p50s = [];
      for (const { searcher, filters } of engines) {
        const queries = sets[name];
        for (const query of queries.slice(0, 20)) await searcher.search(query, k, filters[filter]); // warm-up, untimed
        const millis: number[] = [];
        for (let round = 0; round < rounds; round++) {
          for (const query of queries) {
            const started = performance.now();
            await searcher.search(query, k, filters[filter]);
            millis.push(performance.now() - started);
          }
        }
        p50s.push(summarize(millis).p50.toFixed(2));
      }
      console.log(`| ${name} | ${k} | ${filter} | ${p50s.join(' | ')} |`);
    }
  }
}
for (const { searcher } of engines) await searcher.close();
