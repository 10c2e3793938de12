/**
 * /healthz latency while heavy archives download: resources of many keys
 * (each entry seconds of JSON-LD work when rendered on the main thread) are
 * archived as N-Triples, expanded and compacted JSON-LD, and two downloads
 * run at once while a health checker asks /healthz every 50 ms. Two servers
 * in the same run, interleaved and repeated: rendering inline on the main
 * thread (how the server rendered before) and on the render threads.
 *
 * Each server runs in a child process (bench/archive-healthz-server.ts): the
 * downloading client and the checker live here, so their own work never
 * delays the server's event loop, and the server's own measure of that loop's
 * delay comes back with each run. Latency is still counted from when each
 * probe was due, not from when the timer fired, so a stall of this process
 * cannot hide one of the server.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { type LoopReport, type ServerReady, TOKEN } from './archive-healthz-server.js';

const PROBE_EVERY_MS = 50;

export interface HealthRun {
  mode: 'inline' | 'workers';
  downloadSeconds: number;
  probes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The server's event loop delay during the run, measured inside it (monitorEventLoopDelay). */
  loopP99Ms: number;
  loopMaxMs: number;
}

export interface HealthResults {
  keys: number;
  resources: number;
  entriesPerArchive: number;
  concurrentDownloads: number;
  runs: HealthRun[];
}

interface ServerProcess extends ServerReady {
  child: ChildProcess;
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bench server exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

async function startServer(scratch: string, mode: HealthRun['mode'], keys: number, resources: number): Promise<ServerProcess> {
  const script = new URL('./archive-healthz-server.ts', import.meta.url).pathname;
  const profile = process.env.ARCHIVE_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.join(scratch, '..', `healthz-profile-${mode}`)}`] : [];
  const child = fork(script, [scratch, mode, String(keys), String(resources)], { execArgv: ['--import', 'tsx', ...profile], stdio: 'inherit' });
  return { child, ...(await nextMessage<ServerReady>(child)) };
}

async function stopServer(server: ServerProcess): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.send('close');
  await exited;
}

function get(port: number, url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: url, headers, agent: false }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => (response.statusCode === 200 ? resolve(bytes) : reject(new Error(`${url}: ${response.statusCode}`))));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(target: ServerProcess, mode: HealthRun['mode'], concurrent: number): Promise<HealthRun> {
  target.child.send('measure');
  const latencies: Promise<number>[] = [];
  const started = performance.now();
  let downloading = true;
  let due = started;
  const probe = async () => {
    while (downloading) {
      const scheduled = due;
      latencies.push(get(target.port, '/healthz').then(() => performance.now() - scheduled));
      due += PROBE_EVERY_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
  };
  const prober = probe();
  await Promise.all(Array.from({ length: concurrent }, () => get(target.port, target.archivePath, { authorization: `Bearer ${TOKEN}`, accept: 'application/zip' })));
  const downloadSeconds = (performance.now() - started) / 1000;
  downloading = false;
  await prober;
  const sorted = (await Promise.all(latencies)).sort((a, b) => a - b);
  const report = nextMessage<LoopReport>(target.child);
  target.child.send('report');
  return { mode, downloadSeconds, probes: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted.at(-1)!, ...(await report) };
}

export async function healthDuringDownloads(scratchRoot: string, options: { keys: number; resources: number; rounds: number; concurrent: number }): Promise<HealthResults> {
  const scratch = await mkdtemp(path.join(scratchRoot, 'archive-healthz-'));
  const servers: ServerProcess[] = [];
  try {
    console.log(`healthz bench: ${options.resources} resources x ${options.keys} keys, 3 formats each, ${options.concurrent} downloads at once, ${options.rounds} rounds`);
    const inline = await startServer(scratch, 'inline', options.keys, options.resources);
    servers.push(inline);
    const workers = await startServer(scratch, 'workers', options.keys, options.resources);
    servers.push(workers);
    const runs: HealthRun[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const order: HealthRun['mode'][] = round % 2 === 0 ? ['inline', 'workers'] : ['workers', 'inline'];
      for (const mode of order) {
        const run = await measure(mode === 'inline' ? inline : workers, mode, options.concurrent);
        console.log(JSON.stringify(run));
        runs.push(run);
      }
    }
    return { keys: options.keys, resources: options.resources, entriesPerArchive: options.resources * 3, concurrentDownloads: options.concurrent, runs };
  } finally {
    for (const server of servers) await stopServer(server).catch(() => server.child.kill());
    await rm(scratch, { recursive: true, force: true });
  }
}
