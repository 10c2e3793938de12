/**
 * Lifecycle benchmark of a living index: on a large generated index
 * (default 1M paragraphs; PARAGRAPHS=N to change) served by a LiveIndex with
 * its watcher, as the server runs it, while one client queries without pause:
 *
 *   1. `npm run ingest` of 1,000 new articles from another process: time to
 *      publish (command wall time) and to see them (command exit -> the new
 *      generation answers), query latency before, during the ingest, during
 *      the switch and after;
 *   2. `npm run ingest -- --delete` of 1,000 articles, seen the same way;
 *   3. `npm run ingest -- --merge`: wall time and peak RSS of the merging
 *      process, then the switch to the merged generation (one segment) and the
 *      serving process's memory before and after the old segments are released.
 *
 *   npm run bench:lifecycle           (PARAGRAPHS=200000 npm run bench:lifecycle for a quick run)
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { IndexWriter } from '../src/search/index-writer.js';
import { LiveIndex } from '../src/live/live-index.js';
import { watchIndex } from '../src/live/index-watcher.js';
import { compileFilterSpec } from '../src/search/query/filter-spec.js';
import { loadConfig, searcherOptionsOf } from '../src/config.js';
import { random, sentenceSource, syntheticArticles } from './lib/synthetic-corpus.js';
import { machine, mib, summarize, writeResults } from './lib/stats.js';
import { count } from './lib/settings.js';

const PARAGRAPHS = count('PARAGRAPHS', 1_000_000);
const CHANGED = 1000;
const WORK_DIR = path.resolve('bench', '.work', `lifecycle-${PARAGRAPHS}`);
const INDEX = path.join(WORK_DIR, 'index');
/** The freshly built index, kept so a rerun (BUILD_ONLY=1 first, then the run) copies it instead of rebuilding. */
const PRISTINE = path.join(WORK_DIR, 'pristine');
const BUILT = path.join(WORK_DIR, 'built.json');
const config = loadConfig([], {});
const all = compileFilterSpec({});
const say = (text: string) => process.stderr.write(`${text}\n`);

/** Builds the pristine index once (its build time is kept in built.json), then copies it as the index the run changes. */
async function build(): Promise<number> {
  let buildSeconds: number;
  try {
    ({ buildSeconds } = JSON.parse(await readFile(BUILT, 'utf8')) as { buildSeconds: number });
    say(`reusing the index built in ${buildSeconds.toFixed(0)} s (${PRISTINE})`);
  } catch {
    await rm(WORK_DIR, { recursive: true, force: true });
    await mkdir(WORK_DIR, { recursive: true });
    say(`building ${PARAGRAPHS.toLocaleString()} paragraphs into ${PRISTINE} ...`);
    const started = performance.now();
    const writer = await IndexWriter.open(PRISTINE, { maxSegmentBytes: 256 * 1024 * 1024 });
    for (const article of syntheticArticles(PARAGRAPHS, sentenceSource())) await writer.add(article);
    await writer.commit();
    buildSeconds = (performance.now() - started) / 1000;
    await writeFile(BUILT, JSON.stringify({ buildSeconds }));
  }
  await rm(INDEX, { recursive: true, force: true });
  await cp(PRISTINE, INDEX, { recursive: true });
  return buildSeconds;
}

/** Runs `src/main.ts ingest ...` in its own process; wall time and the process's peak RSS (VmHWM). */
function ingestCommand(args: string[]): Promise<{ seconds: number; peakRssMiB: number; output: string; exitedAt: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'ingest', '--index', INDEX, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let peakKiB = 0;
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const sampler = setInterval(() => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) peakKiB = Math.max(peakKiB, Number(match[1]));
      } catch {
        // exited
      }
    }, 100);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) reject(new Error(`ingest ${args.join(' ')} failed: ${output}`));
      else resolve({ seconds: (performance.now() - started) / 1000, peakRssMiB: peakKiB / 1024, output, exitedAt: performance.now() });
    });
  });
}

interface Timed {
  at: number;
  ms: number;
}

/** One client querying without pause; latencies are tagged with their start time. */
function queryLoop(index: LiveIndex, queries: string[]) {
  const samples: Timed[] = [];
  let stop = false;
  const done = (async () => {
    for (let i = 0; !stop; i++) {
      const at = performance.now();
      await index.read(async ({ searcher, library }) => {
        const hits = await searcher.search(queries[i % queries.length]!, 100, all);
        hits.slice(0, 10).forEach((hit) => library.contextMetadata(hit, 0, null));
      });
      samples.push({ at, ms: performance.now() - at });
      // A search on the calling thread resolves without a macrotask: yield, or timers and I/O starve.
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  return { samples, stop: async () => ((stop = true), await done) };
}

const within = (samples: Timed[], from: number, to: number) => summarize(samples.filter((s) => s.at >= from && s.at < to).map((s) => s.ms));

/** Waits until the served generation differs from `generation`; returns when that happened. */
async function switchedFrom(index: LiveIndex, generation: number): Promise<number> {
  while (index.current.generation === generation) await new Promise((resolve) => setTimeout(resolve, 5));
  return performance.now();
}

async function main(): Promise<void> {
  const buildSeconds = await build();
  if (process.env.BUILD_ONLY) return;
  const source = sentenceSource();
  const rand = random(99);
  const queries = Array.from({ length: 200 }, () => source.sentence(rand).split(' ').slice(0, 2).join(' '));

  const switches: { phase: string; at: number; loadMs: number }[] = [];
  const log = {
    info: (details: object, message: string) => {
      if (message === 'index generation switched') switches.push({ phase: '', at: performance.now(), loadMs: (details as { loadMs: number }).loadMs });
    },
    warn: (details: object, message: string) => say(`${message} ${JSON.stringify(details)}`),
  };
  const index = await LiveIndex.open(INDEX, searcherOptionsOf(config), log);
  const stopWatching = watchIndex(index, config.indexPollInterval, log);
  const loop = queryLoop(index, queries);
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await pause(5000);

  const phases: Record<string, unknown>[] = [];
  /** Runs one change from another process and measures how it is published, seen and felt by the client. */
  const change = async (name: string, args: string[], visible: () => boolean) => {
    const generation = index.current.generation;
    const started = performance.now();
    const command = await ingestCommand(args);
    const switched = await switchedFrom(index, generation);
    while (!visible()) await pause(5);
    const seen = performance.now();
    const { loadMs } = switches.at(-1)!;
    await pause(3000);
    const row = {
      change: name,
      commandSeconds: command.seconds,
      commandPeakRssMiB: command.peakRssMiB,
      seenAfterExitMs: seen - command.exitedAt,
      reloadLoadMs: loadMs,
      latencyBefore: within(loop.samples, started - 5000, started),
      latencyDuringCommand: within(loop.samples, started, command.exitedAt),
      latencyDuringSwitch: within(loop.samples, switched - loadMs, switched + 1000),
      latencyAfter: within(loop.samples, switched + 1000, switched + 3000),
      servingRssMiB: mib(process.memoryUsage().rss),
    };
    say(`${name}: ${JSON.stringify(row)}`);
    phases.push(row);
  };

  const additions = path.join(WORK_DIR, 'additions.jsonl');
  await writeFile(
    additions,
    [...syntheticArticles(CHANGED * 10, source, 7)]
      .slice(0, CHANGED)
      .map((a) => JSON.stringify({ ...a, article_id: `new-${a.article_id}`, paragraphs: a.paragraphs.map((p, i) => (i === 0 ? { ...p, text: `lifecyclemarker ${p.text}` } : p)) }))
      .join('\n'),
  );
  const markerCount = () => index.current.searcher.countArticles(compileFilterSpec({ topics: ['lifecyclemarker'] }));
  await change(`add ${CHANGED} articles`, ['--input', additions, '--merge-factor', '0'], () => markerCount() === CHANGED);

  const deletions = path.join(WORK_DIR, 'deletions.txt');
  const before = index.current.searcher.snapshot.liveArticleCount;
  // Spread over the generated articles (ids syn-0 .. syn-<count - 1>), every one of them present.
  const step = Math.floor((before - CHANGED) / CHANGED);
  await writeFile(deletions, Array.from({ length: CHANGED }, (_, i) => `syn-${i * step}`).join('\n'));
  await change(`delete ${CHANGED} articles`, ['--delete-file', deletions, '--merge-factor', '0'], () => index.current.searcher.snapshot.liveArticleCount === before - CHANGED);

  const segmentsBefore = index.current.searcher.snapshot.segments.length;
  await change(`merge ${segmentsBefore} segments into one`, ['--merge'], () => index.current.searcher.snapshot.segments.length === 1);

  await loop.stop();
  stopWatching();
  await index.close();
  const result = { machine: machine(), loadAverage: os.loadavg()[1]!, paragraphs: PARAGRAPHS, buildSeconds, segmentsBefore, phases };
  await writeResults('lifecycle', result, render(result));
}

type Summary = ReturnType<typeof summarize>;

function render(result: { machine: Record<string, unknown>; loadAverage: number; paragraphs: number; buildSeconds: number; segmentsBefore: number; phases: Record<string, unknown>[] }): string {
  const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
  const latency = (s: Summary) => (s.n === 0 ? 'no query' : `${ms(s.p50)} / ${ms(s.p99)} ms (n=${s.n})`);
  const rows = result.phases.map((p) => {
    const row = p as Record<string, number & Summary> & { change: string };
    return `| ${row.change} | ${row.commandSeconds.toFixed(1)} s | ${row.commandPeakRssMiB.toFixed(0)} MiB | ${ms(row.seenAfterExitMs)} ms (load ${row.reloadLoadMs} ms) | ${latency(row.latencyBefore)} | ${latency(row.latencyDuringCommand)} | ${latency(row.latencyDuringSwitch)} | ${latency(row.latencyAfter)} | ${row.servingRssMiB.toFixed(0)} MiB |`;
  });
  return [
    '# Lifecycle: updates seen without restart, deletions, merging',
    '',
    `Generated by \`npm run bench:lifecycle\` (\`bench/lifecycle.ts\`) on ${result.machine.cores} cores, Node ${result.machine.node};`,
    `5-minute load average at the end of the run: ${result.loadAverage.toFixed(1)} (a shared machine: compare rows of one run, not absolute numbers).`,
    `Index: ${result.paragraphs.toLocaleString()} generated paragraphs (built in ${result.buildSeconds.toFixed(0)} s, ${result.segmentsBefore} segments before the merge).`,
    'One client queries without pause (2-term top-100 through the worker pool of the default size, plus the metadata of the first 10 hits) through a `LiveIndex`',
    'with its watcher, as the server runs it; each change runs as `npm run ingest` in another process.',
    '',
    '- **command**: wall time of the ingest process (Node and tsx start-up included) and its peak RSS (VmHWM);',
    '- **seen after exit**: from the command\'s exit to the first moment the served generation shows the change (detection by the directory watch, then loading the new segments and starting the new generation\'s worker threads); "load" is that loading alone, timed from its own start: it starts once the command has published its change, which can be before the command exits, so it can be longer than "seen after exit";',
    '- **query latency** p50 / p99 over: the 5 s before the command, the command\'s run (the writer competes for the CPU), the switch (from the start of the load to 1 s after), and the 2 s after.',
    '',
    '| change | command | command peak RSS | seen after exit | latency before | during command | during switch | after | serving RSS after |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

await main();
