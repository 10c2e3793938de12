/** A worker thread of worker-throughput.ts: loads its own copy of the index, then answers its share of the queries. */
import { parentPort, workerData } from 'node:worker_threads';
import { createPeer } from './peer-main.js';
import { parseFilter } from './peer.js';
import type { Job } from './worker-throughput.js';

async function workerMain(): Promise<void> {
  const job = workerData as Job;
  const peer = await createPeer(job.name);
  await peer.open(job.dir, job.mode);
  parentPort!.postMessage('ready');
  const { deadline } = await new Promise<{ deadline: number }>((resolve) => parentPort!.once('message', resolve));
  const next = new Int32Array(job.counter);
  const filter = parseFilter(job.filter);
  for (;;) {
    if (Date.now() > deadline) break;
    const i = Atomics.add(next, 0, 1);
    if (i >= job.queries.length) break;
    await peer.search(job.queries[i]!, job.k, filter);
  }
  parentPort!.postMessage('done');
}

await workerMain();
