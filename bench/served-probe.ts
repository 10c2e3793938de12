/**
 * `node --import tsx bench/served-probe.ts INDEX_DIR`: where the served path's
 * time goes, per query set, k and filter, interleaved in one run. For each
 * query it times the in-process engine (Searcher on the calling thread, as the
 * engine peer of bench:peers; both compiled), the server's GET /retrieval/ up to the last
 * byte of the body, and the client's JSON.parse of that body separately
 * (bench:peers' engine-http figures include the parse; it is client work).
 * The server is the compiled one (`scripts/start.mjs serve`, as bench:peers'
 * engine-http and `npm start` run it) with the engine peer's settings.
 *   PROBE_QUERIES  queries per set (default 40)     PROBE_ROUNDS  passes over them (default 2)
 *   PROBE_SETS     query sets (default all)          PROBE_KS      k values (default 10,100,1000)
 *   PROBE_PROFILE  a directory: the server runs with --cpu-prof and writes its profiles there
 *   PROBE_OUT      a file for the rows as JSON (bench:served renders them with SERVED_PROBE=file)
 *   PROBE_RESULT   a name: bench/results/<name>.md and .json, the table with the floor no server goes under
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildCompiled, compiledModule } from './lib/compiled.js';
import { probeTable, type ProbeRow, type ProbeRun } from './lib/probe-table.js';
import { machine, summarize, writeResults } from './lib/stats.js';
import { BM25, FILTER, K_VALUES } from './peers/lib/config.js';
import { querySets } from './peers/lib/queries.js';
import { count, counts } from './lib/settings.js';

buildCompiled();
const { Searcher } = await compiledModule<typeof import('../src/search/searcher.js')>('search/searcher.js');
const { compileFilterSpec } = await compiledModule<typeof import('../src/search/query/filter-spec.js')>('search/query/filter-spec.js');

const indexDir = process.argv[2];
if (!indexDir) throw new Error('usage: served-probe.ts INDEX_DIR (an index of bench:peers, e.g. bench/.work/peers/indexes/engine-generated-200000-split)');
const queryCount = count('PROBE_QUERIES', 40);
const rounds = count('PROBE_ROUNDS', 2);
const profileDir = process.env.PROBE_PROFILE;
const setNames = process.env.PROBE_SETS?.split(',');
const ks = counts('PROBE_KS', K_VALUES);

const port = 20_000 + Math.floor(Math.random() * 20_000);
const dataDir = mkdtempSync(path.join(tmpdir(), 'served-probe-'));
const server = spawn(
  process.execPath,
  [
    ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
    path.resolve('scripts', 'start.mjs'), 'serve', '--index', indexDir, '--port', String(port), '--log-level', 'warn',
    '--title-weight', String(BM25.titleWeight), '--bm25-k1', String(BM25.k1), '--bm25-b', String(BM25.b), '--rate-limit', '0', '--max-in-flight', '0',
  ],
  { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DATA_DIR: dataDir } },
);
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function get(pathAndQuery: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: pathAndQuery, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

try {
  for (let started = performance.now(); ; ) {
    if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
    if ((await get('/retrieval/?query=cell&retriever_k=1').catch(() => null))?.status === 200) break;
    if (performance.now() - started > 600_000) throw new Error('server did not answer within 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const searcher = await Searcher.open(indexDir, { threads: 0, k1: BM25.k1, b: BM25.b, titleWeight: BM25.titleWeight, filterCacheSize: 64 });
  const filterParams = { date_from: FILTER.dateFrom, date_to: FILTER.dateTo, article_types: [FILTER.type] };
  const specs = { none: compileFilterSpec({}), 'date+type': compileFilterSpec(filterParams) };
  const sets = await querySets(queryCount);
  const probeRows: ProbeRow[] = [];
  for (const [set, queries] of Object.entries(sets)) {
    if (setNames && !setNames.includes(set)) continue;
    for (const k of ks) {
      for (const filter of ['none', 'date+type'] as const) {
        const times = { engine: [] as number[], served: [] as number[], parse: [] as number[], bytes: [] as number[] };
        for (let round = 0; round < rounds; round++) {
          for (const query of queries) {
            let t = performance.now();
            await searcher.search(query, k, specs[filter]);
            times.engine.push(performance.now() - t);
            const params = new URLSearchParams({ query, retriever_k: String(k) });
            if (filter !== 'none') {
              params.set('date_from', FILTER.dateFrom);
              params.set('date_to', FILTER.dateTo);
              params.append('article_types', FILTER.type);
            }
            t = performance.now();
            const { status, body } = await get(`/retrieval/?${params}`);
            times.served.push(performance.now() - t);
            if (status !== 200 && status !== 404) throw new Error(`GET /retrieval/ answered ${status}: ${body.toString().slice(0, 200)}`);
            t = performance.now();
            JSON.parse(body.toString('utf8'));
            times.parse.push(performance.now() - t);
            times.bytes.push(body.length / 1024);
          }
        }
        const [engine, served, parse, bytes] = [times.engine, times.served, times.parse, times.bytes].map((m) => summarize(m).p50);
        probeRows.push({ set, k, filter, engine: engine!, served: served!, parse: parse!, kib: bytes! });
        process.stderr.write(`${set} k=${k} ${filter}: engine ${engine!.toFixed(2)} ms, served ${served!.toFixed(2)} ms, parse ${parse!.toFixed(2)} ms, ${bytes!.toFixed(0)} KiB\n`);
      }
    }
  }
  await searcher.close();
  const run: ProbeRun = { date: new Date().toISOString(), queryCount, rounds, rows: probeRows };
  console.log(probeTable(run));
  if (process.env.PROBE_OUT) writeFileSync(process.env.PROBE_OUT, JSON.stringify(run, null, 1));
  if (process.env.PROBE_RESULT) {
    const name = process.env.PROBE_RESULT;
    const markdown = `# Served path against the in-process engine, and the floor under it

Generated by \`PROBE_RESULT=${name} node --import tsx bench/served-probe.ts ${indexDir}\` (index of
bench:peers' generated corpus; PROBE_QUERIES=${queryCount}, PROBE_ROUNDS=${rounds}). Per query, interleaved in one run: the
in-process engine (the Searcher on the calling thread, as bench:peers' engine peer), then GET /retrieval/
of the compiled server timed to the last byte of the body, then the client's \`JSON.parse\` of that body.
p50s in ms. Machine: ${Object.entries(machine()).map(([key, value]) => `${key} ${value}`).join(', ')}.

${probeTable(run)}`;
    await writeResults(name, { ...run, index: indexDir }, markdown);
  }
} finally {
  agent.destroy();
  if (server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}
