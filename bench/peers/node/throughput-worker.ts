/** A worker thread of worker-throughput.ts: loads its own copy of the index, then answers its share of each repetition's queries. */
import { parentPort, workerData } from 'node:worker_threads';
import { createPeer } from './peer-main.js';
import { parseFilter, type NodePeer } from './peer.js';
import { goesOn, type RepetitionEnds } from './repetition.js';
import type { Job, WorkerIndex } from './worker-throughput.js';

async function answer(peer: NodePeer, job: Job, ends: RepetitionEnds): Promise<void> {
  const counters = new Int32Array(job.counters);
  const filter = parseFilter(job.filter);
  while (goesOn(Date.now(), Atomics.load(counters, 0), job.queries.length, ends)) {
    const i = Atomics.add(counters, 0, 1);
    await peer.search(job.queries[i % job.queries.length]!, job.k, filter);
    Atomics.add(counters, 1, 1);
  }
}

async function workerMain(): Promise<void> {
  const index = workerData as WorkerIndex;
  const peer = await createPeer(index.name);
  await peer.open(index.dir, index.mode, 1);
  let job: Job | null = null;
  // A job, then the ends of its repetition, which start it.
  parentPort!.on('message', (message: Job | RepetitionEnds) => {
    if ('queries' in message) {
      job = message;
      parentPort!.postMessage('ready');
      return;
    }
    void answer(peer, job!, message).then(() => parentPort!.postMessage('done'));
  });
  parentPort!.postMessage('ready');
}

await workerMain();
