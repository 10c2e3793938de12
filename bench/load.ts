/**
 * Load benchmark: the real server on loopback under a mixed workload (count,
 * listing, paragraph search, suggestions, archive downloads) at rising
 * concurrency, then past saturation (503 from load shedding) and past a
 * caller's rate limit (429). Reports throughput, p50/p99 latency overall and
 * per kind, status counts and the server's RSS over time; fails (exit 1) on
 * any 5xx other than the 503 of load shedding.
 *
 *   npm run bench:load                       # 60 s per step
 *   STEP_SECONDS=5 npm run bench:load        # a quick run
 *   LOAD_PARAGRAPHS=20000 LOAD_STEPS=1,8,64 npm run bench:load
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildLoadIndex, describeStep, prepareArchive, writeLoadAuthFile, serverErrorsOf, step, workload, type Kind, type LoadTarget, type StepResult } from './lib/load-mix.js';
import { machine, writeResults } from './lib/stats.js';
import { startServerProcess, type ServerProcess } from '../test/reliability/server-process.js';
import { amount, count, counts } from './lib/settings.js';
import { compileServerProcess } from './lib/server-process.js';

const PARAGRAPHS = count('LOAD_PARAGRAPHS', 100_000);
const STEP_SECONDS = amount('STEP_SECONDS', 60);
const STEPS = counts('LOAD_STEPS', [1, 4, 16, 64, 256]);
const OVERLOAD_CONNECTIONS = count('LOAD_OVERLOAD', 1024);
const INDEX_DIR = path.resolve('bench', '.work', `load-${PARAGRAPHS}`);

/** One server process as a load target. */
function targetOf(server: ServerProcess): LoadTarget {
  return {
    base: server.base,
    pids: () => [server.child.pid!],
    assertAlive: () => {
      if (server.child.exitCode !== null || server.child.signalCode !== null) {
        throw new Error(`the server died during the step (${server.child.exitCode ?? server.child.signalCode}): ${server.output().slice(-3000)}`);
      }
    },
  };
}

function rssChart(steps: StepResult[]): string {
  const points = steps.flatMap((s) => s.rss.series);
  const width = 640;
  const height = 220;
  const max = Math.max(...points) * 1.1;
  const x = (i: number) => 40 + (i / Math.max(1, points.length - 1)) * (width - 50);
  const y = (v: number) => height - 20 - (v / max) * (height - 50);
  const line = points.map((v, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const ticks = [0, max / 2, max].map((v) => `<text x="2" y="${y(v) + 4}" font-size="10">${Math.round(v)}</text>`).join('');
  // A dashed line and the connection count where each step starts.
  let start = 0;
  const markers = steps
    .map((s) => {
      const at = x(start);
      start += s.rss.series.length;
      return `<line x1="${at}" y1="24" x2="${at}" y2="${height - 20}" stroke="#999" stroke-dasharray="3,3"/><text x="${at + 3}" y="34" font-size="10">${s.connections} conn.</text>`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/><text x="40" y="14" font-size="12">server RSS (MiB), one point per second</text>${ticks}${markers}
<path d="${line}" fill="none" stroke="#1f77b4" stroke-width="1.5"/></svg>\n`;
}

async function main(): Promise<void> {
  process.stderr.write(`load benchmark: ${PARAGRAPHS} paragraphs, steps ${STEPS.join(', ')} connections, ${STEP_SECONDS} s each\n`);
  await compileServerProcess();
  await buildLoadIndex(INDEX_DIR, PARAGRAPHS);
  const work = await mkdtemp(path.join(os.tmpdir(), 'litserve-load-'));
  const authFile = await writeLoadAuthFile(work);
  const specs = workload();
  const steps: StepResult[] = [];
  // One load generator on one address stands for many clients: the per-address share of the slots
  // (half of them by default) would refuse it past 128 connections, which measures nothing of the server.
  const manyClients = ['--max-in-flight-per-client', '0'];
  let server = await startServerProcess({ dataDir: path.join(work, 'data'), indexDir: INDEX_DIR, authFile, extraFlags: ['--search-threads', String(os.availableParallelism()), ...manyClients] });
  try {
    await prepareArchive(server.base);
    await step(targetOf(server), specs, 4, Math.min(5, STEP_SECONDS)); // warm-up, not reported
    for (const connections of [...STEPS, OVERLOAD_CONNECTIONS]) {
      const result = await step(targetOf(server), specs, connections, STEP_SECONDS);
      steps.push(result);
      process.stderr.write(`${describeStep(result)}\n`);
    }
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
  }

  // The same overload against a server told to shed early: the 503 path.
  server = await startServerProcess({ dataDir: path.join(work, 'data'), indexDir: INDEX_DIR, authFile, extraFlags: ['--search-threads', String(os.availableParallelism()), '--max-in-flight', '32', ...manyClients] });
  let shedding: StepResult;
  try {
    shedding = await step(targetOf(server), specs, OVERLOAD_CONNECTIONS, STEP_SECONDS);
    process.stderr.write(`--max-in-flight 32: ${describeStep(shedding)}\n`);
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
  }

  // One caller past its rate limit: 100 requests a minute, 8 connections for 10 s.
  server = await startServerProcess({ dataDir: path.join(work, 'data'), indexDir: INDEX_DIR, authFile, extraFlags: ['--rate-limit', '100'] });
  let rateLimited: StepResult;
  try {
    rateLimited = await step(targetOf(server), specs.filter((s) => s.kind !== 'archive'), 8, Math.min(10, STEP_SECONDS));
    process.stderr.write(`rate limit 100/min: ${describeStep(rateLimited)}\n`);
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
    await rm(work, { recursive: true, force: true });
  }

  const serverErrors = [...steps, shedding, rateLimited].reduce((sum, s) => sum + serverErrorsOf(s), 0);
  const shedBelowSaturation = steps.filter((s) => s.connections <= 256).reduce((sum, s) => sum + (s.statuses['503'] ?? 0) + s.errors, 0);
  await writeFile(path.resolve('bench', 'results', 'load-rss.svg'), rssChart(steps));
  await writeResults('load', { date: new Date().toISOString(), machine: machine(), paragraphs: PARAGRAPHS, stepSeconds: STEP_SECONDS, specs, steps, shedding, rateLimited, serverErrors },
    markdown(steps, shedding, rateLimited, serverErrors, shedBelowSaturation),
  );
  if (serverErrors > 0) {
    process.stderr.write(`FAILED: ${serverErrors} server errors (5xx other than 503)\n`);
    process.exit(1);
  }
}

const round = (ms: number) => (ms < 10 ? ms.toFixed(1) : Math.round(ms).toString());

/** Where throughput stopped growing, and what happened past it: read from the steps, not assumed. */
function saturationNote(steps: StepResult[]): string {
  const best = steps.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond && (b.statuses['503'] ?? 0) === 0 ? b : a), steps[0]!);
  const past = steps.filter((s) => s.connections > best.connections);
  const described = past.map((s) => {
    const shed = s.statuses['503'] ?? 0;
    const served = Object.entries(s.statuses).filter(([code]) => code < '300').reduce((n, [, c]) => n + c, 0);
    return `${s.connections} connections: ${served} answered (${round(served / s.seconds)} per second), ${shed} refused with 503, ${s.errors} client-side errors (${s.timeouts} requests unanswered after autocannon's 30 s timeout)`;
  });
  return `Throughput peaks at ${best.connections} connections (${best.requestsPerSecond} req/s with both cores shared with the load generator); past it, latency grows. ${described.join('; ')}.`;
}

function markdown(steps: StepResult[], shedding: StepResult, rateLimited: StepResult, serverErrors: number, shedBelowSaturation: number): string {
  const m = machine();
  const statuses = (s: StepResult) => Object.entries(s.statuses).map(([code, count]) => `${code}: ${count}`).join(', ');
  const kinds: Kind[] = ['count', 'listing', 'search', 'suggestions', 'archive'];
  return [
    '# Load benchmark (`npm run bench:load`)',
    '',
    `${new Date().toISOString()}, Node ${m.node}, ${m.cores} cores (${m.cpu}). The server (\`.test-dist/main.js serve\`: src/ compiled as \`npm run build\` compiles it, search pool of ${m.cores} threads, default limits: --max-in-flight 256, without the per-address share, as the load comes from one address) on loopback over ${PARAGRAPHS.toLocaleString('en')} generated paragraphs (bench/lib/synthetic-corpus.ts); autocannon in the same machine, so client and server share the cores. ${STEP_SECONDS} s per step.`,
    '',
    'Mix per 18 requests: 4 article counts, 4 listings (topic filter, some with a type filter), 6 paragraph searches (2 words, top 10 or 100, some date-filtered), 3 suggestions, 1 download of a 1.3 MB ZIP archive (20 files of 64 KiB + 5 articles). The last step is far past saturation on purpose.',
    '',
    saturationNote(steps),
    '',
    `**Verdict: 5xx other than the 503 of load shedding: ${serverErrors}.** 503s and connection errors at or below 256 connections: ${shedBelowSaturation}.`,
    '',
    '| connections | load avg | req/s | p50 ms | p99 ms | statuses | errors | RSS MiB min-max (end) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...steps.map((s) => `| ${s.connections} | ${s.loadAverage} | ${s.requestsPerSecond} | ${s.p50} | ${s.p99} | ${statuses(s)} | ${s.errors} (${s.timeouts} timeouts) | ${s.rss.min}-${s.rss.max} (${s.rss.end}) |`),
    '',
    'Latency by kind, p50 / p99 ms:',
    '',
    `| connections | ${kinds.join(' | ')} |`,
    `| --- | ${kinds.map(() => '---').join(' | ')} |`,
    ...steps.map((s) => `| ${s.connections} | ${kinds.map((k) => (s.byKind[k] ? `${round(s.byKind[k]!.p50)} / ${round(s.byKind[k]!.p99)}` : '-')).join(' | ')} |`),
    '',
    `Past saturation with early shedding (server started with --max-in-flight 32, ${shedding.connections} connections): ${shedding.requestsPerSecond} req/s, p50 ${shedding.p50} ms, p99 ${shedding.p99} ms; ${statuses(shedding)}; errors ${shedding.errors}.`,
    '',
    `One caller over its rate limit (server started with --rate-limit 100, 8 connections, ${rateLimited.seconds} s, no archives): ${statuses(rateLimited)}.`,
    '',
    '![server RSS over time](load-rss.svg)',
    '',
  ].join('\n');
}

if (process.env.RENDER_ONLY === '1') {
  // Re-render the report from the last run's JSON (after a change to the report itself).
  const saved = JSON.parse(readFileSync(path.resolve('bench', 'results', 'load.json'), 'utf8'));
  const shedBelow = (saved.steps as StepResult[]).filter((s) => s.connections <= 256).reduce((sum, s) => sum + (s.statuses['503'] ?? 0) + s.errors, 0);
  await writeFile(path.resolve('bench', 'results', 'load-rss.svg'), rssChart(saved.steps));
  await writeFile(path.resolve('bench', 'results', 'load.md'), markdown(saved.steps, saved.shedding, saved.rateLimited, saved.serverErrors, shedBelow).replace(/^\d{4}-\d\d-\d\dT[^,]+/m, saved.date));
} else {
  await main();
}
