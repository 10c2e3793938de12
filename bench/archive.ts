/**
 * Archive benchmark: one archive of N files (default 2,000, 1 GiB in total)
 * plus M resources (default 2,000), downloaded over a real socket, side by
 * side with Debian's `zip` on the same files in the same run.
 *
 *   node --import tsx bench/archive.ts
 *   ARCHIVE_BENCH_MB=64 node --import tsx bench/archive.ts     # small run
 *   ARCHIVE_BENCH_MB=0 node --import tsx bench/archive.ts      # /healthz part only
 *
 * Settings (environment): ARCHIVE_BENCH_MB (total file size, default 1024;
 * 0 skips this part and keeps its last results), ARCHIVE_BENCH_FILES
 * (default 2000), ARCHIVE_BENCH_RESOURCES (default 2000), ARCHIVE_BENCH_DIR
 * (scratch directory, default the system temp dir); for /healthz during
 * heavy downloads (bench/archive-healthz.ts): ARCHIVE_BENCH_KEYS (keys per
 * heavy resource, default 50000), ARCHIVE_BENCH_HEAVY (heavy resources,
 * default 2), ARCHIVE_BENCH_ROUNDS (default 2), ARCHIVE_BENCH_CPU_PROF=1 (CPU
 * profiles of both servers, in healthz-profile-* beside the scratch directory).
 *
 * Half the files are random bytes (like images or compressed instrument
 * data), half CSV-like text of digits. zip deflates everything at level 6;
 * the server deflates at level 6 what a 64 KiB sample shows to be
 * compressible and stores the rest.
 * Peak RSS above baseline: for the server, resident memory sampled every
 * 20 ms during the download minus the resident memory just before it; for
 * zip, its VmHWM (peak resident memory) read from /proc.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';
import yauzl from 'yauzl';
import { defaultOf } from '../src/config.js';
import { PLATFORM_MAX_PARAM_LENGTH, platformApi } from '../src/http/platform/index.js';
import { OPERATOR } from '../src/platform/identities.js';
import { openServices } from '../src/services.js';
import { entityView } from '../src/platform/metadata.js';
import { renderText } from '../src/platform/rendering.js';
import { type HealthResults, type HealthRun, healthDuringDownloads } from './archive-healthz.js';
import { NO_ARTICLES } from '../src/platform/literature.js';
import { MEASURED, measuredLine } from './lib/stats.js';
import { count } from './lib/settings.js';

const MIB = 1024 * 1024;
// ARCHIVE_BENCH_MB=0 skips the large archive and keeps its figures from archive.json; any other value is read as
// the other settings are (a word or a fraction is refused: read with Number(), "abc" had kept the old figures silently).
const totalBytes = process.env.ARCHIVE_BENCH_MB?.trim() === '0' ? 0 : count('ARCHIVE_BENCH_MB', 1024) * MIB;
const fileCount = count('ARCHIVE_BENCH_FILES', 2000);
const resourceCount = count('ARCHIVE_BENCH_RESOURCES', 2000);
const scratchRoot = process.env.ARCHIVE_BENCH_DIR ?? tmpdir();
const TOKEN = 'bench-token-0123456789';

function zipAvailable(): boolean {
  return !spawnSync('zip', ['-v'], { stdio: 'ignore' }).error;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Samples this process's RSS until stopped; returns the peak. */
function rssSampler() {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  return { stop: () => (clearInterval(timer), Math.max(peak, process.memoryUsage.rss())) };
}

/** Runs a command, polling its peak resident memory (VmHWM) from /proc. */
function runMeasured(command: string, args: string[], cwd: string): Promise<{ seconds: number; peakRssBytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
    let peakKb = 0;
    const poll = setInterval(async () => {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
      const match = /VmHWM:\s+(\d+) kB/.exec(status);
      if (match) peakKb = Math.max(peakKb, Number(match[1]));
    }, 20);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(poll);
      if (code !== 0) return reject(new Error(`${command} exited with ${code}`));
      resolve({ seconds: (performance.now() - started) / 1000, peakRssBytes: peakKb * 1024 });
    });
  });
}

function countEntries(file: string): Promise<number> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      resolve(zip.entryCount);
      zip.close();
    }),
  );
}

/** Rows of random numbers, as measurement tables look: compresses to about half. */
function csvText(bytes: number): Buffer {
  const digits = randomBytes(bytes);
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) out[i] = i % 64 === 63 ? 10 : i % 8 === 7 ? 44 : 48 + (digits[i]! % 10);
  return out;
}

type BigResults = Omit<Results, 'healthz'>;

async function bigArchive(): Promise<BigResults> {
  const scratch = await mkdtemp(path.join(scratchRoot, 'archive-bench-'));
  const sourceDir = path.join(scratch, 'source');
  const filesDir = path.join(sourceDir, 'files');
  const resourcesDir = path.join(sourceDir, 'resources');
  await mkdir(filesDir, { recursive: true });
  await mkdir(resourcesDir, { recursive: true });
  const fileBytes = Math.floor(totalBytes / fileCount);
  console.log(`archive bench: ${fileCount} files x ${(fileBytes / 1024).toFixed(0)} KiB + ${resourceCount} resources, in ${scratch}`);
  const hasZip = zipAvailable();
  if (!hasZip) console.log('zip is not installed: the comparison is skipped (install it with `apt-get install -y zip`)');

  await writeFile(path.join(scratch, 'auth.json'), JSON.stringify({ tokens: { [TOKEN]: { realm: 'local', subject: 'bench' } }, acls: { '/': { 'local/bench': ['*'] } } }));
  const services = await openServices({
    dataDir: path.join(scratch, 'data'),
    authFile: path.join(scratch, 'auth.json'),
    archiveTtlMs: 3_600_000,
    literatureProject: 'literature/articles',
    literature: NO_ARTICLES,
  });
  const { platform, archives } = services;
  const owner = OPERATOR;
  await platform.orgs.save('bench', undefined, undefined, owner);
  await platform.projects.save({ org: 'bench', project: 'data' }, {}, undefined, owner);
  const ref = { org: 'bench', project: 'data' };

  console.log('setup: writing source files and uploading them…');
  const entries: object[] = [];
  const text = csvText(Math.max(fileBytes * 2, MIB));
  for (let i = 0; i < fileCount; i++) {
    const binary = i % 2 === 0;
    const name = `file-${String(i).padStart(5, '0')}.${binary ? 'bin' : 'csv'}`;
    const source = path.join(filesDir, name);
    const offset = Math.floor(Math.random() * (text.length - fileBytes));
    await writeFile(source, binary ? randomBytes(fileBytes) : text.subarray(offset, offset + fileBytes));
    const mediaType = binary ? 'application/octet-stream' : 'text/csv';
    await platform.files.create(ref, name, undefined, async () => ({ filename: name, mediaType, content: createReadStream(source), isTruncated: () => false }), owner);
    entries.push({ '@type': 'File', resourceId: name });
  }
  const project = await platform.projects.forRead(ref);
  for (let i = 0; i < resourceCount; i++) {
    const id = `res-${String(i).padStart(5, '0')}`;
    const payload = { '@type': 'Dataset', name: `Resource ${i}`, description: 'A benchmark resource. '.repeat(8), index: i };
    const state = await platform.resources.create(ref, id, payload, owner);
    // The same document zip packs: the compacted form the archive contains.
    await writeFile(path.join(resourcesDir, `${id}.json`), await renderText(entityView(state, project, platform.baseUri), 'compacted'));
    entries.push({ '@type': 'Resource', resourceId: id });
  }
  const archive = await archives.create(ref, 'bench-archive', { resources: entries }, owner);

  const app = Fastify({ logger: false, routerOptions: { maxParamLength: PLATFORM_MAX_PARAM_LENGTH } });
  // Downloads per client as the server bounds them by default.
  const maxArchiveDownloadsPerClient = defaultOf('maxArchiveDownloadsPerClient');
  await app.register(platformApi, { platform, archives, maxArchiveDownloadsPerClient });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}${new URL(archives.selfOf(archive)).pathname}`;

  console.log('server: downloading the archive…');
  gc();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baselineRss = process.memoryUsage.rss();
  const sampler = rssSampler();
  const ourZip = path.join(scratch, 'server.zip');
  const started = performance.now();
  const response = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get(url, { headers: { authorization: `Bearer ${TOKEN}` } }, resolve).on('error', reject),
  );
  if (response.statusCode !== 200) throw new Error(`download failed: ${response.statusCode}`);
  await pipeline(response, createWriteStream(ourZip));
  const serverSeconds = (performance.now() - started) / 1000;
  const serverPeak = sampler.stop();
  const serverBytes = (await stat(ourZip)).size;
  const serverEntries = await countEntries(ourZip);
  await app.close();
  await services.close();

  const inputBytes = fileBytes * fileCount;
  const server = {
    seconds: serverSeconds,
    archiveBytes: serverBytes,
    entries: serverEntries,
    inputMBps: inputBytes / MIB / serverSeconds,
    peakRssAboveBaselineMiB: (serverPeak - baselineRss) / MIB,
    baselineRssMiB: baselineRss / MIB,
  };

  let zip: { seconds: number; archiveBytes: number; entries: number; inputMBps: number; peakRssMiB: number } | null = null;
  if (hasZip) {
    console.log('zip: packing the same files…');
    const zipOut = path.join(scratch, 'zip.zip');
    const measured = await runMeasured('zip', ['-q', '-r', zipOut, 'files', 'resources'], sourceDir);
    zip = {
      seconds: measured.seconds,
      archiveBytes: (await stat(zipOut)).size,
      entries: await countEntries(zipOut),
      inputMBps: inputBytes / MIB / measured.seconds,
      peakRssMiB: measured.peakRssBytes / MIB,
    };
  }
  await rm(scratch, { recursive: true, force: true });

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    machine: `${(await import('node:os')).cpus().length} cores`,
    files: fileCount,
    fileBytes,
    inputMiB: inputBytes / MIB,
    resources: resourceCount,
    server,
    zip,
  };
  console.log(JSON.stringify(results, null, 2));
  return results;
}

async function main(): Promise<void> {
  const dir = new URL('./results/', import.meta.url);
  const big: BigResults =
    totalBytes > 0 ? { ...(await bigArchive()), measured: MEASURED } : (JSON.parse(await readFile(new URL('archive.json', dir), 'utf8')) as BigResults);
  const healthz = await healthDuringDownloads(scratchRoot, {
    keys: count('ARCHIVE_BENCH_KEYS', 50_000),
    resources: count('ARCHIVE_BENCH_HEAVY', 2),
    rounds: count('ARCHIVE_BENCH_ROUNDS', 2),
    concurrent: 2,
  });
  const { loadavg } = await import('node:os');
  await writeResults({ ...big, healthz: { date: new Date().toISOString(), loadAverage: loadavg()[1]!, measured: MEASURED, ...healthz } });
}

interface Results {
  date: string;
  node: string;
  machine: string;
  files: number;
  fileBytes: number;
  inputMiB: number;
  resources: number;
  server: { seconds: number; archiveBytes: number; entries: number; inputMBps: number; peakRssAboveBaselineMiB: number; baselineRssMiB: number };
  zip: { seconds: number; archiveBytes: number; entries: number; inputMBps: number; peakRssMiB: number } | null;
  /** The commit and CPU of the large archive's run (kept with its figures; runs before it was recorded have none). */
  measured?: typeof MEASURED;
  /** loadAverage: the machine's 5-minute load average when the run ended (other work shares its cores). */
  healthz: HealthResults & { date: string; loadAverage?: number; measured?: typeof MEASURED };
}

function healthLines(healthz: Results['healthz']): string[] {
  const f = (n: number) => n.toFixed(0);
  const summary = (mode: HealthRun['mode']) => {
    const runs = healthz.runs.filter((r) => r.mode === mode);
    const column = (value: (run: HealthRun) => number | undefined) => runs.map((r) => (value(r) === undefined ? '–' : f(value(r)!))).join(', ');
    return `| ${mode === 'inline' ? 'main thread (before)' : 'render threads (after)'} | ${runs.map((r) => r.downloadSeconds.toFixed(1)).join(', ')} | ${column((r) => r.p50Ms)} | ${column((r) => r.p99Ms)} | ${column((r) => r.maxMs)} | ${column((r) => r.loopP99Ms)} | ${column((r) => r.loopMaxMs)} |`;
  };
  return [
    '## /healthz during heavy downloads',
    '',
    `Run ${healthz.date}: ${healthz.resources} resources of ${healthz.keys} keys each, archived as N-Triples, expanded and compacted JSON-LD (${healthz.entriesPerArchive} entries); ${healthz.concurrentDownloads} downloads of that archive at once while a checker asks \`/healthz\` every 50 ms, latency counted from when each probe was due. Each server runs in its own process (the client and checker in the benchmark's), both in the same run, interleaved, ${healthz.runs.length / 2} rounds each (one value per round); "event loop" is the server's own delay, measured inside it (\`monitorEventLoopDelay\`, 10 ms resolution).${healthz.loadAverage === undefined ? '' : ` Load average of the shared 2-core machine during the run: ${healthz.loadAverage.toFixed(1)}.`}`,
    '',
    '| rendering | downloads done in (s) | /healthz p50 (ms) | p99 (ms) | max (ms) | event loop p99 (ms) | event loop max (ms) |',
    '|---|---|---|---|---|---|---|',
    summary('inline'),
    summary('workers'),
    '',
    ...(healthz.measured ? [measuredLine(healthz.measured), ''] : []),
  ];
}

async function writeResults(results: Results): Promise<void> {
  const dir = new URL('./results/', import.meta.url);
  await mkdir(dir, { recursive: true });
  await writeFile(new URL('archive.json', dir), `${JSON.stringify(results, null, 2)}\n`);
  const { server, zip } = results;
  const f = (n: number, digits = 1) => n.toFixed(digits);
  const lines = [
    '# Archive benchmark',
    '',
    `Run ${results.date} on ${results.machine}, Node ${results.node}: one archive of ${results.files} files (${f(results.inputMiB, 0)} MiB: half random bytes, half CSV-like text) plus ${results.resources} resources (compacted JSON-LD), downloaded over a real socket; Debian's \`zip -r\` on the same files (and the same ${results.resources} JSON documents) in the same run. zip deflates everything at level 6; the server deflates at level 6 what a 64 KiB sample shows to be compressible and stores the rest.`,
    '',
    '| | time (s) | throughput (MiB/s of input) | peak memory | archive size (MiB) | entries |',
    '|---|---|---|---|---|---|',
    `| server (streamed) | ${f(server.seconds)} | ${f(server.inputMBps)} | ${f(server.peakRssAboveBaselineMiB)} MiB above a ${f(server.baselineRssMiB, 0)} MiB baseline | ${f(server.archiveBytes / MIB)} | ${server.entries} |`,
    zip
      ? `| \`zip -q -r\` | ${f(zip.seconds)} | ${f(zip.inputMBps)} | ${f(zip.peakRssMiB)} MiB (whole process) | ${f(zip.archiveBytes / MIB)} | ${zip.entries} |`
      : '| `zip` | not installed (`apt-get install -y zip`) | | | | |',
    '',
    'zip also counts its two folders (`files/`, `resources/`) as entries.',
    '',
    'Reproduce: `node --import tsx bench/archive.ts` (add `--expose-gc` for a steadier baseline; `ARCHIVE_BENCH_MB=64` for a small run).',
    '',
    ...(results.measured ? [measuredLine(results.measured), ''] : []),
    ...healthLines(results.healthz),
    'Reproduce: `npm run bench:archive` (`ARCHIVE_BENCH_MB=0` runs this part only and keeps the table above).',
    '',
  ];
  await writeFile(new URL('archive.md', dir), lines.join('\n'));
}

await main();
