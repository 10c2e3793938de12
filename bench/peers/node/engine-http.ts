/**
 * This engine through its HTTP endpoint: the real server as `npm start` runs it
 * (compiled: `dist/main.js serve`, which bench:peers builds before the run; not through scripts/start.mjs,
 * which would recompile mid-run if src/ changed meanwhile; a search pool of PEERS_THREADS threads, otherwise default settings) on a loopback
 * port, queried with GET /retrieval/ over keep-alive connections. Latency is
 * measured by the client and includes the JSON of the answers (paragraph text
 * and article metadata), which is the server's overhead this peer shows.
 * It serves the index the in-process engine peer built.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BM25, type FieldMode } from '../lib/config.js';
import type { Filter, NodePeer } from './peer.js';
import { cycleQueries } from './repetition.js';

const ymd = (n: number) => `${String(n).slice(0, 4)}-${String(n).slice(4, 6)}-${String(n).slice(6, 8)}`;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export class EngineHttpPeer implements NodePeer {
  private server: ChildProcess | null = null;
  private dataDir = '';
  private port = 0;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  async build(): Promise<void> {
    throw new Error('engine-http serves the index of the engine peer; it builds nothing');
  }

  async open(indexDir: string, mode: FieldMode, threads: number): Promise<void> {
    this.port = await freePort();
    this.dataDir = mkdtempSync(path.join(tmpdir(), 'peers-http-'));
    const titleWeight = mode === 'split' ? BM25.titleWeight : 0;
    this.server = spawn(
      process.execPath,
      [path.resolve('dist', 'main.js'), 'serve', '--index', indexDir, '--port', String(this.port),
        '--log-level', 'warn', '--search-threads', String(threads), '--title-weight', String(titleWeight), '--bm25-k1', String(BM25.k1), '--bm25-b', String(BM25.b),
        // A benchmark client is one caller sending thousands of requests a minute.
        '--rate-limit', '0', '--max-in-flight', '0'],
      { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DATA_DIR: this.dataDir } },
    );
    // Load time = start of the process until it answers a search.
    const deadline = performance.now() + 600_000;
    for (;;) {
      if (this.server.exitCode !== null) throw new Error(`server exited with ${this.server.exitCode}`);
      try {
        await this.get('/retrieval/?query=cell&retriever_k=1');
        return;
      } catch {
        if (performance.now() > deadline) throw new Error('server did not answer within 10 minutes');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  private get(pathAndQuery: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port: this.port, path: pathAndQuery, agent: this.agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      });
      request.on('error', reject);
    });
  }

  private async retrieve(query: string, k: number, filter: Filter | null): Promise<{ article_id: string }[]> {
    const params = new URLSearchParams({ query, retriever_k: String(k) });
    if (filter) {
      params.set('date_from', ymd(filter.from));
      params.set('date_to', ymd(filter.to));
      params.append('article_types', filter.type);
    }
    const { status, body } = await this.get(`/retrieval/?${params}`);
    if (status === 404) return []; // the API's "no document found"
    if (status !== 200) throw new Error(`GET /retrieval/ answered ${status}: ${body.slice(0, 200)}`);
    return JSON.parse(body) as { article_id: string }[];
  }

  async search(query: string, k: number, filter: Filter | null): Promise<number> {
    return (await this.retrieve(query, k, filter)).length;
  }

  async rank(query: string, k: number): Promise<string[]> {
    return [...new Set((await this.retrieve(query, k, null)).map((c) => c.article_id))];
  }

  /** Clients keep 2 requests in flight per search thread of the server (its pool does the parallel work). */
  async throughput(queries: string[], k: number, filter: Filter | null, threads: number, maxSeconds: number, minSeconds: number) {
    return cycleQueries(queries, threads * 2, maxSeconds, minSeconds, (query) => this.search(query, k, filter));
  }

  memoryPid(): number {
    return this.server!.pid!;
  }

  versions(): Record<string, string> {
    return { 'engine-http': 'litserve serve (fastify)' };
  }

  async close(): Promise<void> {
    this.agent.destroy();
    if (this.server && this.server.exitCode === null) {
      const exited = new Promise((resolve) => this.server!.once('exit', resolve));
      this.server.kill('SIGTERM');
      await exited;
    }
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
