/**
 * Platform store write latency: PostgreSQL (a throw-away local cluster, as in
 * the tests) beside the embedded LMDB store, in the same run, interleaved and
 * repeated. Each round creates WRITES resources in one project through the
 * platform services (no HTTP), then updates each once with its rev, measuring
 * every call. Results: bench/results/replicas.md.
 *
 * Then the load mix of bench/load.ts against one server and two replicas
 * behind nginx (bench/replicas-load.ts; needs Debian's nginx).
 *
 *   npm run bench:replicas
 *   REPLICA_WRITES=50 REPLICA_ROUNDS=2 REPLICA_LOAD_SECONDS=3 REPLICA_LOAD_ROUNDS=1 npm run bench:replicas   # a quick run
 *
 * Settings of the load part: REPLICA_LOAD_PARAGRAPHS (default 20,000),
 * REPLICA_LOAD_STEPS (connections, default 16,64), REPLICA_LOAD_SECONDS (per
 * step, default 10), REPLICA_LOAD_ROUNDS (default 2), REPLICA_LOAD_WRITES
 * (creations per 18 requests, default 2). Exits 1 on any 5xx but shedding's 503.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OPERATOR } from '../src/platform/identities.js';
import { openServices, type Services } from '../src/services.js';
import { schemaUrl, startCluster } from '../test/postgres/cluster.js';
import { machine, summarize, writeResults } from './lib/stats.js';
import { measureReplicaLoad, replicaLoadErrors, replicaLoadMarkdown, replicaLoadSettings } from './replicas-load.js';
import { count } from './lib/settings.js';
import { compileServerProcess } from './lib/server-process.js';
import { NO_ARTICLES } from '../src/platform/literature.js';

const WRITES = count('REPLICA_WRITES', 300);
const ROUNDS = count('REPLICA_ROUNDS', 3);
const loadSettings = replicaLoadSettings();

async function open(dataDir: string, platformStore: string): Promise<Services> {
  return openServices({ dataDir, platformStore, authFile: null, archiveTtlMs: 3_600_000, literatureProject: 'literature/articles', literature: NO_ARTICLES, renderThreads: 0 });
}

/** One round: creations then updates in a fresh project; returns their latencies in ms. */
async function round(services: Services, label: string): Promise<{ create: number[]; update: number[] }> {
  const { platform } = services;
  const ref = { org: 'bench', project: label };
  if (!(await platform.orgs.get('bench'))) await platform.orgs.save('bench', undefined, undefined, OPERATOR);
  await platform.projects.save(ref, {}, undefined, OPERATOR);
  const create: number[] = [];
  const update: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const started = performance.now();
    await platform.resources.create(ref, `r${i}`, { '@type': 'Dataset', name: `resource ${i}`, index: i }, OPERATOR);
    create.push(performance.now() - started);
  }
  for (let i = 0; i < WRITES; i++) {
    const started = performance.now();
    await platform.resources.update(ref, `r${i}`, 1, { '@type': 'Dataset', name: `resource ${i}, revised`, index: i }, OPERATOR);
    update.push(performance.now() - started);
  }
  return { create, update };
}

await compileServerProcess();
const cluster = startCluster();
const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-replicas-'));
try {
  const stores = {
    lmdb: await open(path.join(dir, 'lmdb'), 'lmdb'),
    postgresql: await open(path.join(dir, 'pg'), await schemaUrl(cluster.url, 'bench')),
  };
  const samples = { lmdb: { create: [] as number[], update: [] as number[] }, postgresql: { create: [] as number[], update: [] as number[] } };
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of r % 2 === 0 ? (['lmdb', 'postgresql'] as const) : (['postgresql', 'lmdb'] as const)) {
      const measured = await round(stores[name], `round${r}`);
      samples[name].create.push(...measured.create);
      samples[name].update.push(...measured.update);
    }
  }
  for (const services of Object.values(stores)) await services.close();
  const load = await measureReplicaLoad(loadSettings, cluster.url, dir);
  const rows = Object.entries(samples).flatMap(([store, { create, update }]) =>
    Object.entries({ create, update }).map(([operation, millis]) => ({ store, operation, ...summarize(millis) })),
  );
  const ratio = (operation: 'create' | 'update', key: 'p50' | 'p99') =>
    (rows.find((r) => r.store === 'postgresql' && r.operation === operation)![key] / rows.find((r) => r.store === 'lmdb' && r.operation === operation)![key]).toFixed(1);
  const markdown = [
    '# Platform store: PostgreSQL beside LMDB, one server beside replicas (`npm run bench:replicas`)',
    '',
    '## Write latency',
    '',
    `${WRITES} resource creations then ${WRITES} updates (with rev) per round, ${ROUNDS} rounds per store, interleaved, sequential calls`,
    'through the platform services (no HTTP). PostgreSQL: a throw-away local cluster on a unix socket with fsync off',
    '(as in the tests), so its numbers are the transaction and round-trip cost, not disk flushes; LMDB syncs as in production.',
    '',
    '| store | operation | n | p50 ms | p99 ms | mean ms |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.store} | ${r.operation} | ${r.n} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.mean.toFixed(2)} |`),
    '',
    `PostgreSQL / LMDB: create p50 ×${ratio('create', 'p50')}, p99 ×${ratio('create', 'p99')}; update p50 ×${ratio('update', 'p50')}, p99 ×${ratio('update', 'p99')}.`,
    '',
    replicaLoadMarkdown(loadSettings, load),
    `Machine: ${JSON.stringify(machine())}`,
    '',
  ].join('\n');
  await writeResults('replicas', { writes: WRITES, rounds: ROUNDS, rows, load: { settings: loadSettings, rows: load }, machine: machine() }, markdown);
  console.log(markdown);
  if (replicaLoadErrors(load) > 0) process.exitCode = 1;
} finally {
  cluster.stop();
  await rm(dir, { recursive: true, force: true });
}
