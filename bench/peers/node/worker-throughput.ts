/**
 * Throughput of a single-threaded JavaScript library on several cores: each
 * worker thread loads its own copy of the index (there is no other way to
 * share it), all start together, and take queries from one shared counter.
 */
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { FieldMode } from '../lib/config.js';
import { repetitionEnds } from './repetition.js';

export interface Job {
  name: string;
  dir: string;
  mode: FieldMode;
  queries: string[];
  k: number;
  filter: string;
  /** Two counters: the queries taken and the queries answered. */
  counters: SharedArrayBuffer;
}

const WORKER = new URL('./throughput-worker.ts', import.meta.url).href;

export async function workerThroughput(
  name: string,
  dir: string,
  mode: FieldMode,
  queries: string[],
  k: number,
  filter: string,
  threads: number,
  maxSeconds: number,
  minSeconds: number,
): Promise<{ seconds: number; queries: number }> {
  const counters = new SharedArrayBuffer(8);
  const workers = Array.from(
    { length: threads },
    () =>
      // Node refuses a .ts file as a worker's entry: a bootstrap loads this module through tsx.
      new Worker(`import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(WORKER)}, ${JSON.stringify(WORKER)}))`, {
        eval: true,
        workerData: { name, dir, mode, queries, k, filter, counters } satisfies Job,
        resourceLimits: { maxOldGenerationSizeMb: 20_000 },
      }),
  );
  const message = (worker: Worker) =>
    new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  await Promise.all(workers.map(message)); // every copy loaded
  const started = performance.now();
  const finished = Promise.all(workers.map(message));
  const ends = repetitionEnds(Date.now(), maxSeconds, minSeconds);
  for (const worker of workers) worker.postMessage(ends);
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(workers.map((w) => w.terminate()));
  return { seconds, queries: Atomics.load(new Int32Array(counters), 1) };
}
