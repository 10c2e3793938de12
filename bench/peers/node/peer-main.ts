/**
 * Entry of the Node-driven peers (`peer-main.ts <engine|engine-http|minisearch|orama>`):
 * reads protocol commands on stdin (see lib/peer-process.ts) and answers "@@ <json>".
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { isMainThread } from 'node:worker_threads';
import type { FieldMode } from '../lib/config.js';
import { memoryOf, parseFilter, type NodePeer } from './peer.js';
import { closeWorkers, workerThroughput } from './worker-throughput.js';

export async function createPeer(name: string): Promise<NodePeer> {
  switch (name) {
    case 'engine':
      return new (await import('./engine.js')).EnginePeer();
    case 'engine-http':
      return new (await import('./engine-http.js')).EngineHttpPeer();
    case 'minisearch':
      return new (await import('./minisearch.js')).MiniSearchPeer();
    case 'orama':
      return new (await import('./orama.js')).OramaPeer();
    default:
      throw new Error(`unknown Node peer ${name}`);
  }
}

const readQueryFile = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

async function main(): Promise<void> {
  const name = process.argv[2]!;
  const peer = await createPeer(name);
  let opened: { dir: string; mode: FieldMode } | null = null;

  const handlers: Record<string, (args: string[]) => Promise<unknown>> = {
    build: async ([corpus, dir, mode]) => {
      const started = performance.now();
      await peer.build(corpus!, dir!, mode as FieldMode);
      return { seconds: (performance.now() - started) / 1000 };
    },
    open: async ([dir, mode, threads]) => {
      const started = performance.now();
      const searchThreads = Number(threads);
      // A missing count would reach the server as `--search-threads NaN`, which it refuses, and the peer would fail later.
      if (!Number.isInteger(searchThreads) || searchThreads < 1) throw new Error(`open needs a thread count, got ${String(threads)}`);
      await peer.open(dir!, mode as FieldMode, searchThreads);
      opened = { dir: dir!, mode: mode as FieldMode };
      return { seconds: (performance.now() - started) / 1000 };
    },
    latency: async ([file, k, filterText, maxSeconds]) => {
      const filter = parseFilter(filterText!);
      const ms: number[] = [];
      let hits = 0;
      const deadline = performance.now() + Number(maxSeconds) * 1000;
      for (const query of readQueryFile(file!)) {
        const started = performance.now();
        hits += await peer.search(query, Number(k), filter);
        const now = performance.now();
        ms.push(now - started);
        if (now > deadline) break;
      }
      return { ms, hits };
    },
    rank: async ([file, k]) => {
      const rankings: string[][] = [];
      for (const query of readQueryFile(file!)) rankings.push(await peer.rank(query, Number(k)));
      return { rankings };
    },
    throughput: async ([file, k, filterText, threads, maxSeconds, minSeconds]) => {
      const queries = readQueryFile(file!);
      const filter = parseFilter(filterText!);
      if (peer.throughput) return peer.throughput(queries, Number(k), filter, Number(threads), Number(maxSeconds), Number(minSeconds));
      if (!opened) throw new Error('throughput before open');
      return workerThroughput({ name, ...opened }, queries, Number(k), filterText!, Number(threads), Number(maxSeconds), Number(minSeconds));
    },
    memory: async () => memoryOf(peer.memoryPid?.() ?? 'self'),
    versions: async () => ({ node: process.version, ...peer.versions() }),
    quit: async () => {
      await closeWorkers();
      await peer.close();
      return {};
    },
  };

  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [op, ...args] = line.split('\t');
    const handler = handlers[op!];
    let reply: unknown;
    try {
      reply = handler ? await handler(args) : { error: `unknown command ${op}` };
    } catch (error) {
      reply = { error: (error as Error).stack ?? String(error) };
    }
    process.stdout.write(`@@ ${JSON.stringify(reply)}\n`);
    if (op === 'quit') return process.exit(0);
  }
  // Input ended without "quit": the harness is gone (killed, or crashed). engine-http's server is a process of its
  // own, which would otherwise outlive this one and keep its port and index open.
  await peer.close();
  process.exit(0);
}

// Worker threads import this module's createPeer; only the process entry (the source or its bundle) runs the loop.
if (isMainThread && /peer-main\.(ts|mjs)$/.test(process.argv[1] ?? '')) await main();
