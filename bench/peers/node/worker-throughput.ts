/**
 * Throughput of a single-threaded JavaScript library on several cores: each
 * worker thread loads its own copy of the index (there is no other way to
 * share it), all start together, and take queries from one shared counter.
 * The workers are started and loaded once, at the first repetition, before
 * its timing starts, and kept for the next ones, as the other peers keep
 * their pools.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { FieldMode } from '../lib/config.js';
import { repetitionEnds } from './repetition.js';

/** What a worker loads once. */
export interface WorkerIndex {
  name: string;
  dir: string;
  mode: FieldMode;
}

/** One repetition's work, sent before its timing starts. */
export interface Job {
  queries: string[];
  k: number;
  filter: string;
  /** Two counters: the queries taken and the queries answered. */
  counters: SharedArrayBuffer;
}

const WORKER = new URL('./throughput-worker.ts', import.meta.url).href;

let pool: { key: string; workers: Worker[] } | null = null;

/** A worker's next message; rejects when the worker fails first. */
const reply = (worker: Worker) => once(worker, 'message');

async function workersFor(index: WorkerIndex, threads: number): Promise<Worker[]> {
  const key = JSON.stringify([index, threads]);
  if (pool?.key === key) return pool.workers;
  await closeWorkers();
  const workers = Array.from(
    { length: threads },
    () =>
      // Node refuses a .ts file as a worker's entry: a bootstrap loads this module through tsx.
      new Worker(`import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(WORKER)}, ${JSON.stringify(WORKER)}))`, {
        eval: true,
        workerData: index satisfies WorkerIndex,
        resourceLimits: { maxOldGenerationSizeMb: 20_000 },
      }),
  );
  await Promise.all(workers.map(reply)); // every copy loaded
  pool = { key, workers };
  return workers;
}

export async function closeWorkers(): Promise<void> {
  await Promise.all((pool?.workers ?? []).map((worker) => worker.terminate()));
  pool = null;
}

export async function workerThroughput(
  index: WorkerIndex,
  queries: string[],
  k: number,
  filter: string,
  threads: number,
  maxSeconds: number,
  minSeconds: number,
): Promise<{ seconds: number; queries: number }> {
  const workers = await workersFor(index, threads);
  const counters = new SharedArrayBuffer(8);
  const ready = Promise.all(workers.map(reply));
  for (const worker of workers) worker.postMessage({ queries, k, filter, counters } satisfies Job);
  await ready;
  const started = performance.now();
  const finished = Promise.all(workers.map(reply));
  const ends = repetitionEnds(Date.now(), maxSeconds, minSeconds);
  for (const worker of workers) worker.postMessage(ends);
  await finished;
  const seconds = (performance.now() - started) / 1000;
  return { seconds, queries: Atomics.load(new Int32Array(counters), 1) };
}
