/** A worker thread of worker-throughput.ts: loads its own copy of the index, then answers its share of the queries. */
import { parentPort, workerData } from 'node:worker_threads';
import { createPeer } from './peer-main.js';
import { parseFilter } from './peer.js';
import { goesOn, type RepetitionEnds } from './repetition.js';
import type { Job } from './worker-throughput.js';

async function workerMain(): Promise<void> {
  const job = workerData as Job;
  const peer = await createPeer(job.name);
  await peer.open(job.dir, job.mode);
  parentPort!.postMessage('ready');
  const ends = await new Promise<RepetitionEnds>((resolve) => parentPort!.once('message', resolve));
  const counters = new Int32Array(job.counters);
  const filter = parseFilter(job.filter);
  while (goesOn(Date.now(), Atomics.load(counters, 0), job.queries.length, ends)) {
    const i = Atomics.add(counters, 0, 1);
    await peer.search(job.queries[i % job.queries.length]!, job.k, filter);
    Atomics.add(counters, 1, 1);
  }
  parentPort!.postMessage('done');
}

await workerMain();
