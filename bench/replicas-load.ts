/**
 * The load benchmark's mix (bench/lib/load-mix.ts, plus resource creations)
 * against four set-ups started side by side and measured in turns, round after
 * round: one server on LMDB, one server on PostgreSQL, that server behind
 * nginx (the balancer's own cost), and two replicas on one PostgreSQL schema
 * and one blob directory behind nginx (docs/deploy/nginx-replicas.conf).
 * The search pool gets the machine's cores once: one server has a thread per
 * core, each replica half of them, so both set-ups have the same CPU to offer.
 */
import os from 'node:os';
import path from 'node:path';
import { schemaUrl } from '../test/postgres/cluster.js';
import { nginxMissing, startBalancer, type Balancer } from '../test/reliability/nginx.js';
import { freePort, kill, startServerProcess, type ServerProcess } from '../test/reliability/server-process.js';
import { buildLoadIndex, describeStep, prepareArchive, serverErrorsOf, step, workload, writeLoadAuthFile, type Kind, type LoadTarget, type StepResult } from './lib/load-mix.js';
import { amount, count, counts } from './lib/settings.js';

export interface ReplicaLoadSettings {
  paragraphs: number;
  steps: number[];
  stepSeconds: number;
  rounds: number;
  /** Resource creations added to each 18 requests of the mix. */
  writes: number;
}

export const SETUPS = ['one server, LMDB', 'one server, PostgreSQL', 'one server, PostgreSQL, behind nginx', 'two replicas, PostgreSQL, behind nginx'] as const;
type Setup = (typeof SETUPS)[number];

interface Running {
  target: LoadTarget;
  stop(): Promise<void>;
}

export interface ReplicaLoadRow {
  setup: Setup;
  connections: number;
  results: StepResult[];
}

export function replicaLoadSettings(): ReplicaLoadSettings {
  return {
    paragraphs: count('REPLICA_LOAD_PARAGRAPHS', 20_000),
    steps: counts('REPLICA_LOAD_STEPS', [16, 64]),
    stepSeconds: amount('REPLICA_LOAD_SECONDS', 10),
    rounds: count('REPLICA_LOAD_ROUNDS', 2),
    writes: count('REPLICA_LOAD_WRITES', 2),
  };
}

function targetOf(base: string, servers: ServerProcess[], balancer: Balancer | null): LoadTarget {
  return {
    base,
    pids: () => [...servers.map((s) => s.child.pid!), ...(balancer ? [balancer.pid] : [])],
    assertAlive: () => {
      for (const server of servers) {
        if (server.child.exitCode !== null || server.child.signalCode !== null) throw new Error(`a server died: ${server.output().slice(-3000)}`);
      }
    },
  };
}

async function startSetup(setup: Setup, work: string, indexDir: string, authFile: string, clusterUrl: string): Promise<Running> {
  const dir = path.join(work, setup.replace(/[^a-z]+/gi, '-'));
  const cores = os.availableParallelism();
  const store = setup === 'one server, LMDB' ? [] : ['--platform-store', await schemaUrl(clusterUrl, dir), '--blob-dir', path.join(dir, 'blobs')];
  const behindNginx = setup.endsWith('behind nginx');
  const balancerPort = behindNginx ? await freePort() : 0;
  const publicUrl = behindNginx ? ['--public-url', `http://127.0.0.1:${balancerPort}`] : [];
  const replicas = setup.startsWith('two replicas') ? 2 : 1;
  const threads = String(Math.max(1, Math.floor(cores / replicas)));
  const servers: ServerProcess[] = [];
  for (let i = 0; i < replicas; i++) {
    servers.push(await startServerProcess({ dataDir: path.join(dir, `data-${i}`), indexDir, authFile, extraFlags: [...store, ...publicUrl, '--search-threads', threads] }));
  }
  const balancer = behindNginx ? await startBalancer(path.join(dir, 'nginx'), balancerPort, [servers[0]!.port, servers.at(-1)!.port]) : null;
  const target = targetOf(balancer?.base ?? servers[0]!.base, servers, balancer);
  return {
    target,
    stop: async () => {
      await balancer?.stop();
      for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await kill(server);
    },
  };
}

/** Starts every set-up, then measures each step of each set-up in turn, `rounds` times, the order rotating between rounds. */
export async function measureReplicaLoad(settings: ReplicaLoadSettings, clusterUrl: string, work: string): Promise<ReplicaLoadRow[]> {
  const missing = nginxMissing();
  if (missing) throw new Error(`the replica load benchmark needs nginx: ${missing}`);
  const indexDir = path.resolve('bench', '.work', `load-${settings.paragraphs}`);
  await buildLoadIndex(indexDir, settings.paragraphs);
  const authFile = await writeLoadAuthFile(work);
  const specs = workload(settings.writes);
  const running = new Map<Setup, Running>();
  try {
    for (const setup of SETUPS) {
      const started = await startSetup(setup, work, indexDir, authFile, clusterUrl);
      running.set(setup, started);
      await prepareArchive(started.target.base);
      await step(started.target, specs, 4, 3); // warm-up, not reported
    }
    const rows: ReplicaLoadRow[] = SETUPS.flatMap((setup) => settings.steps.map((connections) => ({ setup, connections, results: [] as StepResult[] })));
    for (let round = 0; round < settings.rounds; round++) {
      const order = SETUPS.map((_, i) => SETUPS[(i + round) % SETUPS.length]!);
      for (const setup of order) {
        for (const connections of settings.steps) {
          const result = await step(running.get(setup)!.target, specs, connections, settings.stepSeconds);
          rows.find((r) => r.setup === setup && r.connections === connections)!.results.push(result);
          process.stderr.write(`round ${round + 1}, ${setup}: ${describeStep(result)}\n`);
        }
      }
    }
    return rows;
  } finally {
    for (const setup of running.values()) await setup.stop();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const joined = (values: number[]) => values.map((v) => (v < 10 ? v.toFixed(1) : Math.round(v).toString())).join(', ');

export function replicaLoadErrors(rows: ReplicaLoadRow[]): number {
  return rows.flatMap((r) => r.results).reduce((sum, s) => sum + serverErrorsOf(s), 0);
}

/** The markdown section of bench/results/replicas.md. */
export function replicaLoadMarkdown(settings: ReplicaLoadSettings, rows: ReplicaLoadRow[]): string {
  const kinds: Kind[] = ['search', 'listing', 'archive', 'write'];
  const statuses = (row: ReplicaLoadRow) => {
    const total: Record<string, number> = {};
    for (const s of row.results) for (const [code, count] of Object.entries(s.statuses)) total[code] = (total[code] ?? 0) + count;
    return Object.entries(total).map(([code, count]) => `${code}: ${count}`).join(', ');
  };
  const perSecond = (setup: Setup, connections: number) => median(rows.find((r) => r.setup === setup && r.connections === connections)!.results.map((s) => s.requestsPerSecond));
  const ratios = settings.steps.map((c) => {
    const one = perSecond('one server, PostgreSQL, behind nginx', c);
    return `${c} connections: two replicas ${(perSecond('two replicas, PostgreSQL, behind nginx', c) / one).toFixed(2)}× the req/s of one server behind the same nginx, ${(perSecond('one server, PostgreSQL', c) / perSecond('one server, LMDB', c)).toFixed(2)}× for PostgreSQL against LMDB (one server, direct)`;
  });
  return [
    '## The load mix against one server and against two replicas',
    '',
    `The mix of \`npm run bench:load\` (per 18 requests: 4 article counts, 4 listings, 6 searches, 3 suggestions, 1 ZIP download) plus ${settings.writes} resource creations (POST /v1/resources), on ${settings.paragraphs.toLocaleString('en')} generated paragraphs; autocannon on the same machine. Four set-ups started side by side and measured in turns (${settings.rounds} rounds, order rotating, ${settings.stepSeconds} s per step; each figure lists every round's value). Search threads: one per core for a lone server, half as many for each replica, so both offer the same CPU.`,
    '',
    `**5xx other than the 503 of load shedding: ${replicaLoadErrors(rows)}.**`,
    '',
    '| set-up | connections | req/s | p50 ms | p99 ms | statuses (all rounds) | RSS MiB (servers + nginx), max |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.setup} | ${r.connections} | ${joined(r.results.map((s) => s.requestsPerSecond))} | ${joined(r.results.map((s) => s.p50))} | ${joined(r.results.map((s) => s.p99))} | ${statuses(r)} | ${Math.max(...r.results.map((s) => s.rss.max))} |`,
    ),
    '',
    'p99 by kind, ms (each round):',
    '',
    `| set-up | connections | ${kinds.join(' | ')} |`,
    `| --- | --- | ${kinds.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.setup} | ${r.connections} | ${kinds.map((k) => joined(r.results.map((s) => s.byKind[k]?.p99 ?? NaN))).join(' | ')} |`),
    '',
    `Medians of the rounds: ${ratios.join('; ')}.`,
    '',
    `What this can and cannot show: every process here shares the same ${os.availableParallelism()} cores with the load generator and nginx, so two replicas cannot add CPU; the figures show what the replica set-up costs (the balancer's hop, PostgreSQL instead of LMDB, two processes sharing one machine) and that it serves the same mix without errors. Replicas add throughput when each runs on a machine of its own, which this benchmark does not measure.`,
    '',
  ].join('\n');
}
