/**
 * The server of the /healthz benchmark, in a process of its own (forked by
 * bench/archive-healthz.ts), so the benchmark's downloading client and health
 * checker never share its event loop. It stores heavy resources, creates an
 * archive of them, listens, and answers its parent over IPC:
 *   → { port, archivePath, entries } once listening;
 *   'measure' starts counting its event loop's delay, 'report' answers
 *   { loopP99Ms, loopMaxMs } since then, 'close' shuts down and exits.
 *
 *   node --import tsx bench/archive-healthz-server.ts <scratch> <inline|workers> <keys> <resources>
 * Run with --cpu-prof (ARCHIVE_BENCH_CPU_PROF=1 in the parent) to see what the main thread does.
 */
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { defaultOf } from '../src/config.js';
import { PLATFORM_MAX_PARAM_LENGTH, platformApi } from '../src/http/platform/index.js';
import { OPERATOR } from '../src/platform/identities.js';
import { openServices } from '../src/services.js';
import { NO_ARTICLES } from '../src/platform/literature.js';

export const TOKEN = 'bench-token-0123456789';

export interface ServerReady {
  port: number;
  archivePath: string;
  entries: number;
}

export interface LoopReport {
  loopP99Ms: number;
  loopMaxMs: number;
}

function heavyPayload(index: number, keys: number): Record<string, unknown> {
  const payload: Record<string, unknown> = { '@type': 'Dataset', name: `heavy ${index}` };
  for (let k = 0; k < keys; k++) payload[`k${k}`] = k;
  return payload;
}

async function serve(scratch: string, mode: 'inline' | 'workers', keys: number, resources: number): Promise<void> {
  await writeFile(path.join(scratch, 'auth.json'), JSON.stringify({ tokens: { [TOKEN]: { realm: 'local', subject: 'bench' } }, acls: { '/': { 'local/bench': ['*'] } } }));
  const services = await openServices({
    dataDir: path.join(scratch, `data-${mode}`),
    authFile: path.join(scratch, 'auth.json'),
    archiveTtlMs: 3_600_000,
    literatureProject: 'literature/articles',
    literature: NO_ARTICLES,
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
  // Downloads per client as the server bounds them by default.
  const maxArchiveDownloadsPerClient = defaultOf('maxArchiveDownloadsPerClient');
  await app.register(platformApi, { platform: services.platform, archives: services.archives, maxArchiveDownloadsPerClient });
  await app.listen({ host: '127.0.0.1', port: 0 });

  let loop: IntervalHistogram | null = null;
  process.on('message', async (message) => {
    if (message === 'measure') {
      loop?.disable();
      loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
    } else if (message === 'report' && loop) {
      loop.disable();
      const report: LoopReport = { loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6 };
      process.send!(report);
    } else if (message === 'close') {
      await app.close();
      await services.close();
      process.disconnect();
    }
  });
  const ready: ServerReady = { port: (app.server.address() as AddressInfo).port, archivePath: new URL(services.archives.selfOf(archive)).pathname, entries: entries.length };
  process.send!(ready);
}

// Imported by the parent for its types and token; serves only when forked as a script.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [scratch, mode, keys, resources] = process.argv.slice(2);
  await serve(scratch!, mode as 'inline' | 'workers', Number(keys), Number(resources));
}
