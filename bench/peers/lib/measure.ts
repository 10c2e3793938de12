/**
 * Measures the peers on one corpus, each phase in fresh processes so that peak
 * memory belongs to that phase: (1) build, (2) open, quality (SciFact), latency
 * cells, throughput cells. Every figure is repeated, the peers interleaved, and
 * the median kept. Untimed, the same for every peer: a warm-up before the
 * first latency cell and before the first throughput cell (lib/warm-up.ts),
 * and the first 20 queries of the cell's list at its k and filter before each
 * cell.
 */
import { readdir, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { summarize } from '../../lib/stats.js';
import { ndcgAt, recallAt, type Qrels } from '../../../src/eval/metrics.js';
import { segmentSizes, luceneSizes } from '../../lib/segment-sizes.js';
import { FILTER, K_VALUES, throughputWindow, type BenchConfig, type CorpusName, type FieldMode, type PeerName } from './config.js';
import { PeerProcess } from './peer-process.js';
import type { QuerySetName, QuerySets } from './queries.js';
import { describeWarmUp, warmUntilSettled, type WarmUp } from './warm-up.js';

export type FilterName = 'none' | 'date+type';
const FILTER_ARG: Record<FilterName, string> = {
  none: '-',
  'date+type': `${FILTER.dateFrom.replaceAll('-', '')}:${FILTER.dateTo.replaceAll('-', '')}:${FILTER.type}`,
};

export interface LatencyCell {
  set: QuerySetName;
  k: number;
  filter: FilterName;
  p50: number;
  p99: number;
  /** Queries timed per repetition (fewer than the set when the time budget ran out). */
  queries: number;
  hitsPerQuery: number;
}

export interface ThroughputCell {
  k: number;
  filter: FilterName;
  qps: number;
  queries: number;
  /** The repetitions' length (median); runs before it was recorded have none. */
  seconds?: number;
}

export interface PeerRun {
  peer: PeerName;
  corpus: CorpusName;
  build: { seconds: number; peakRssMiB: number } | null;
  indexMiB: number | null;
  load: { seconds: number; rssMiB: number } | null;
  queryPeakRssMiB: number | null;
  latency: LatencyCell[];
  throughput: ThroughputCell[];
  versions: Record<string, string>;
  /** Index bytes split into searchable and stored parts (engine and Lucene only). */
  sizes?: { searchableMiB: number; storedMiB: number; positionsMiB?: number } | null;
  /** The untimed passes over the query sets before the first latency cell (runs before it was recorded have none). */
  latencyWarmUp?: WarmUp;
  /** The untimed repetitions of the first throughput cell before it, which also start the peer's pool (likewise). */
  throughputWarmUp?: WarmUp;
  error?: string;
}

export interface QualityRun {
  peer: PeerName;
  mode: FieldMode;
  ndcg10: number;
  recall100: number;
  queries: number;
  error?: string;
}

interface Memory {
  rssMiB: number;
  peakRssMiB: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    total += entry.isDirectory() ? await directoryBytes(file) : (await stat(file)).size;
  }
  return total;
}

/** Searchable and stored bytes of the peers whose files tell them apart. */
export async function indexSizes(peer: PeerName, dir: string): Promise<PeerRun['sizes']> {
  if (peer === 'engine') return segmentSizes(dir);
  if (peer === 'lucene') return luceneSizes(dir);
  return null;
}

export interface Workspace {
  config: BenchConfig;
  corpusFile(corpus: CorpusName): string;
  indexDir(peer: PeerName, corpus: CorpusName, mode: FieldMode): string;
  queryFile(name: string): string;
}

export async function writeQueryFiles(ws: Workspace, sets: QuerySets, judged: string[]): Promise<void> {
  await mkdir(path.dirname(ws.queryFile('x')), { recursive: true });
  for (const [name, queries] of Object.entries(sets)) {
    await writeFile(ws.queryFile(name), queries.join('\n') + '\n');
    await writeFile(ws.queryFile(`${name} warm-up`), queries.slice(0, 20).join('\n') + '\n');
  }
  // Throughput: the sets interleaved, so that each thread sees a mix.
  const lists = Object.values(sets);
  const mixed = Array.from({ length: Math.max(...lists.map((l) => l.length)) }, (_, i) => lists.map((l) => l[i]).filter((q): q is string => !!q)).flat();
  await writeFile(ws.queryFile('mixed'), mixed.join('\n') + '\n');
  await writeFile(ws.queryFile('mixed warm-up'), mixed.slice(0, 20).join('\n') + '\n');
  await writeFile(ws.queryFile('judged'), judged.join('\n') + '\n');
}

const log = (message: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);

/** Builds the peer's index in a process of its own; engine-http reuses the engine's. */
async function build(peer: PeerName, ws: Workspace, corpus: CorpusName, mode: FieldMode) {
  if (peer === 'engine-http') return { build: null, dir: ws.indexDir('engine', corpus, mode) };
  const dir = ws.indexDir(peer, corpus, mode);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const process_ = PeerProcess.start(peer);
  try {
    log(`${peer}: building ${corpus} (${mode})`);
    const { seconds } = await process_.call<{ seconds: number }>('build', ws.corpusFile(corpus), dir, mode);
    const memory = await process_.call<Memory>('memory');
    log(`${peer}: built in ${seconds.toFixed(1)} s, peak RSS ${memory.peakRssMiB.toFixed(0)} MiB`);
    return { build: { seconds, peakRssMiB: memory.peakRssMiB }, dir };
  } finally {
    await process_.quit();
  }
}

export async function measureQuality(peer: PeerName, ws: Workspace, mode: FieldMode, judgedIds: string[], qrels: Qrels): Promise<QualityRun> {
  try {
    const { dir } = await build(peer, ws, 'scifact', mode);
    const process_ = PeerProcess.start(peer);
    try {
      await process_.call('open', dir, mode, ws.config.threads);
      const { rankings } = await process_.call<{ rankings: string[][] }>('rank', ws.queryFile('judged'), 100);
      const run = scoreRankings(peer, mode, rankings, judgedIds, qrels);
      log(`${peer}: SciFact (${mode}) nDCG@10 ${run.ndcg10.toFixed(4)}, Recall@100 ${run.recall100.toFixed(4)}`);
      return run;
    } finally {
      await process_.quit();
    }
  } catch (error) {
    log(`${peer}: quality (${mode}) failed: ${(error as Error).message}`);
    return { peer, mode, ndcg10: NaN, recall100: NaN, queries: 0, error: (error as Error).message };
  }
}

export function scoreRankings(peer: PeerName, mode: FieldMode, rankings: string[][], ids: string[], qrels: Qrels): QualityRun {
  let ndcg = 0;
  let recall = 0;
  ids.forEach((id, i) => {
    ndcg += ndcgAt(10, rankings[i] ?? [], qrels.get(id)!);
    recall += recallAt(100, rankings[i] ?? [], qrels.get(id)!);
  });
  return { peer, mode, ndcg10: ndcg / ids.length, recall100: recall / ids.length, queries: ids.length };
}

/** The latency warm-up's k and filter: those of the first cells measured. */
export const LATENCY_WARM_UP = { k: K_VALUES[0], filter: 'none' } as const satisfies { k: number; filter: FilterName };

/** One untimed pass of the latency warm-up: every query set in turn; its figure is the median of all its queries' times. */
async function latencyPass(process_: PeerProcess, ws: Workspace, sets: QuerySetName[]): Promise<number> {
  const ms: number[] = [];
  for (const set of sets) {
    const reply = await process_.call<{ ms: number[] }>('latency', ws.queryFile(set), LATENCY_WARM_UP.k, FILTER_ARG[LATENCY_WARM_UP.filter], ws.config.secondsPerCell);
    ms.push(...reply.ms);
  }
  return median(ms);
}

/** The throughput warm-up's k and filter: those of the first throughput cell. */
export const THROUGHPUT_WARM_UP = LATENCY_WARM_UP;

/** One repetition of a throughput cell over the list of `file`, on the run's threads and budget. */
async function throughputRepetition(process_: PeerProcess, ws: Workspace, file: string, k: number, filter: FilterName, minSeconds: number) {
  const { config } = ws;
  return process_.call<{ seconds: number; queries: number }>('throughput', ws.queryFile(file), k, FILTER_ARG[filter], config.threads, config.secondsPerCell, minSeconds);
}

/**
 * Speed and memory of the peers on one corpus (split layout, the engine's own).
 * Builds run one after the other; then every peer is opened in its own process
 * and each figure is measured for all peers in turn, repetition by repetition
 * (the order rotating), so that the ratios between peers come from the same
 * minutes of a machine shared with other work.
 */
export async function measureSpeed(peers: readonly PeerName[], ws: Workspace, corpus: CorpusName, sets: QuerySets): Promise<PeerRun[]> {
  const { config } = ws;
  const open: { run: PeerRun; process_: PeerProcess }[] = [];
  const runs: PeerRun[] = [];
  const fail = (run: PeerRun, error: unknown) => {
    run.error = (error as Error).message.split('\n').slice(0, 3).join(' ');
    log(`${run.peer}: ${corpus} failed: ${run.error}`);
  };
  for (const peer of peers) {
    const run: PeerRun = { peer, corpus, build: null, indexMiB: null, load: null, queryPeakRssMiB: null, latency: [], throughput: [], versions: {} };
    runs.push(run);
    try {
      const built = await build(peer, ws, corpus, 'split');
      run.build = built.build;
      run.indexMiB = (await directoryBytes(built.dir)) / 1048576;
      run.sizes = await indexSizes(peer, built.dir);
      const process_ = PeerProcess.start(peer);
      open.push({ run, process_ });
      run.versions = await process_.call<Record<string, string>>('versions');
      const { seconds } = await process_.call<{ seconds: number }>('open', built.dir, 'split', config.threads);
      const loaded = await process_.call<Memory>('memory');
      run.load = { seconds, rssMiB: loaded.rssMiB };
      log(`${peer}: ${corpus} loaded in ${seconds.toFixed(2)} s, RSS ${loaded.rssMiB.toFixed(0)} MiB`);
    } catch (error) {
      fail(run, error);
    }
  }
  const live = () => open.filter(({ run }) => !run.error);
  /** Each repetition measures every live peer, starting with a different one each time. */
  const interleaved = async <T>(measure: (process_: PeerProcess) => Promise<T>): Promise<Map<PeerRun, T[]>> => {
    const results = new Map<PeerRun, T[]>();
    for (let r = 0; r < config.repeats; r++) {
      const peersNow = live();
      for (let i = 0; i < peersNow.length; i++) {
        const { run, process_ } = peersNow[(i + r) % peersNow.length]!;
        try {
          const value = await measure(process_);
          results.set(run, [...(results.get(run) ?? []), value]);
        } catch (error) {
          fail(run, error);
        }
      }
    }
    return results;
  };
  /** Warms every live peer the same way (lib/warm-up.ts), recording what it took. */
  const warmEach = async (figure: 'latency' | 'throughput', pass: (process_: PeerProcess) => Promise<number>) => {
    for (const { run, process_ } of live()) {
      try {
        const warmUp = await warmUntilSettled(() => pass(process_));
        run[figure === 'latency' ? 'latencyWarmUp' : 'throughputWarmUp'] = warmUp;
        log(`${run.peer}: ${corpus} ${figure} warm-up: ${describeWarmUp(warmUp)}`);
      } catch (error) {
        fail(run, error);
      }
    }
  };
  try {
    await warmEach('latency', (process_) => latencyPass(process_, ws, Object.keys(sets) as QuerySetName[]));
    for (const set of Object.keys(sets) as QuerySetName[]) {
      for (const k of K_VALUES) {
        for (const filter of Object.keys(FILTER_ARG) as FilterName[]) {
          const args = [k, FILTER_ARG[filter], config.secondsPerCell] as const;
          for (const { process_ } of live()) await process_.call('latency', ws.queryFile(`${set} warm-up`), ...args);
          const measured = await interleaved(async (process_) => {
            const { ms, hits } = await process_.call<{ ms: number[]; hits: number }>('latency', ws.queryFile(set), ...args);
            const summary = summarize(ms);
            return { p50: summary.p50, p99: summary.p99, n: ms.length, hits: hits / ms.length };
          });
          for (const [run, repeats] of measured) {
            const cell: LatencyCell = {
              set, k, filter,
              p50: median(repeats.map((r) => r.p50)),
              p99: median(repeats.map((r) => r.p99)),
              queries: median(repeats.map((r) => r.n)),
              hitsPerQuery: median(repeats.map((r) => r.hits)),
            };
            run.latency.push(cell);
            log(`${run.peer}: ${corpus} ${set} k=${k} ${filter}: p50 ${cell.p50.toFixed(2)} ms, p99 ${cell.p99.toFixed(2)} ms (${cell.queries} queries)`);
          }
        }
      }
    }
    await warmEach('throughput', async (process_) => {
      const result = await throughputRepetition(process_, ws, 'mixed', THROUGHPUT_WARM_UP.k, THROUGHPUT_WARM_UP.filter, throughputWindow(config));
      return result.queries / result.seconds;
    });
    for (const k of K_VALUES) {
      for (const filter of Object.keys(FILTER_ARG) as FilterName[]) {
        for (const { process_ } of live()) await throughputRepetition(process_, ws, 'mixed warm-up', k, filter, 0);
        const measured = await interleaved(async (process_) => {
          const result = await throughputRepetition(process_, ws, 'mixed', k, filter, throughputWindow(config));
          return { qps: result.queries / result.seconds, queries: result.queries, seconds: result.seconds };
        });
        for (const [run, repeats] of measured) {
          const cell = { k, filter, qps: median(repeats.map((r) => r.qps)), queries: median(repeats.map((r) => r.queries)), seconds: median(repeats.map((r) => r.seconds)) };
          run.throughput.push(cell);
          log(`${run.peer}: ${corpus} throughput k=${k} ${filter}: ${cell.qps.toFixed(1)} queries/s on ${config.threads} threads (${cell.queries} queries in ${cell.seconds.toFixed(2)} s)`);
        }
      }
    }
    for (const { run, process_ } of live()) run.queryPeakRssMiB = (await process_.call<Memory>('memory')).peakRssMiB;
  } finally {
    for (const { process_ } of open) await process_.quit();
  }
  return runs;
}
