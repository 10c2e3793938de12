/**
 * /healthz latency while heavy archives download: resources of many keys
 * (each entry seconds of JSON-LD work when rendered on the main thread) are
 * archived as N-Triples, expanded and compacted JSON-LD, and two downloads
 * run at once while a health checker asks /healthz every 50 ms. Two servers
 * in the same run, interleaved and repeated: rendering inline on the main
 * thread (how the server rendered before) and on the render threads.
 *
 * Latency is measured from when each probe was due, not from when the timer
 * actually fired: the prober shares the server's event loop, and a stalled
 * loop would otherwise delay the probe and hide the stall.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Fastify from 'fastify';
import { PLATFORM_MAX_PARAM_LENGTH, platformApi } from '../src/http/platform/index.js';
import { OPERATOR } from '../src/platform/identities.js';
import { openServices, type Services } from '../src/services.js';

const TOKEN = 'bench-token-0123456789';
const PROBE_EVERY_MS = 50;

export interface HealthRun {
  mode: 'inline' | 'workers';
  downloadSeconds: number;
  probes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface HealthResults {
  keys: number;
  resources: number;
  entriesPerArchive: number;
  concurrentDownloads: number;
  runs: HealthRun[];
}

function heavyPayload(index: number, keys: number): Record<string, unknown> {
  const payload: Record<string, unknown> = { '@type': 'Dataset', name: `heavy ${index}` };
  for (let k = 0; k < keys; k++) payload[`k${k}`] = k;
  return payload;
}

async function server(scratch: string, mode: HealthRun['mode'], keys: number, resources: number) {
  await writeFile(path.join(scratch, 'auth.json'), JSON.stringify({ tokens: { [TOKEN]: { realm: 'local', subject: 'bench' } }, acls: { '/': { 'local/bench': ['*'] } } }));
  const services: Services = await openServices({
    dataDir: path.join(scratch, `data-${mode}`),
    authFile: path.join(scratch, 'auth.json'),
    archiveTtlMs: 3_600_000,
    literatureProject: 'literature/articles',
    literature: { getArticle: () => null, listArticleIds: () => [], articleCount: () => 0 },
    renderThreads: mode === 'inline' ? 0 : undefined,
  });
  const ref = { org: 'bench', project: 'heavy' };
  await services.platform.orgs.save('bench', undefined, undefined, OPERATOR);
  await services.platform.projects.save(ref, {}, undefined, OPERATOR);
  const entries: object[] = [];
  for (let i = 0; i < resources; i++) {
    await services.platform.resources.create(ref, `heavy-${i}`, heavyPayload(i, keys), OPERATOR);
    for (const format of ['n-triples', 'expanded', 'compacted']) entries.push({ '@type': 'Resource', resourceId: `heavy-${i}`, format, path: `/heavy-${i}/${format}` });
  }
  const archive = await services.archives.create(ref, 'heavy', { resources: entries }, OPERATOR);
  const app = Fastify({ logger: false, routerOptions: { maxParamLength: PLATFORM_MAX_PARAM_LENGTH } });
  app.get('/healthz', async () => '200');
  await app.register(platformApi, { platform: services.platform, archives: services.archives });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  return {
    port,
    archivePath: new URL(services.archives.selfOf(archive)).pathname,
    entries: entries.length,
    close: async () => {
      await app.close();
      await services.close();
    },
  };
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

async function measure(target: Awaited<ReturnType<typeof server>>, mode: HealthRun['mode'], concurrent: number): Promise<HealthRun> {
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
  return { mode, downloadSeconds, probes: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted.at(-1)! };
}

export async function healthDuringDownloads(scratchRoot: string, options: { keys: number; resources: number; rounds: number; concurrent: number }): Promise<HealthResults> {
  const scratch = await mkdtemp(path.join(scratchRoot, 'archive-healthz-'));
  try {
    console.log(`healthz bench: ${options.resources} resources x ${options.keys} keys, 3 formats each, ${options.concurrent} downloads at once, ${options.rounds} rounds`);
    const servers = { inline: await server(scratch, 'inline', options.keys, options.resources), workers: await server(scratch, 'workers', options.keys, options.resources) };
    const runs: HealthRun[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const order: HealthRun['mode'][] = round % 2 === 0 ? ['inline', 'workers'] : ['workers', 'inline'];
      for (const mode of order) {
        const run = await measure(servers[mode], mode, options.concurrent);
        console.log(JSON.stringify(run));
        runs.push(run);
      }
    }
    await servers.inline.close();
    await servers.workers.close();
    return { keys: options.keys, resources: options.resources, entriesPerArchive: options.resources * 3, concurrentDownloads: options.concurrent, runs };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
