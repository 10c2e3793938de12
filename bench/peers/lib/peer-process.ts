/**
 * Drives one peer process over a line protocol, the same for Node, Java and
 * Python peers: the harness writes one command a line (fields separated by
 * tabs), the peer answers one line "@@ <json>". Anything else the peer prints
 * is passed on to stderr. Timing happens inside the peer, so the protocol's
 * own cost is never measured.
 *
 * Commands (see README text in peers.md):
 *   build <corpus.tsv> <indexDir> <split|merged>   -> {seconds}
 *   open <indexDir> <split|merged> <threads>       -> {seconds} (threads: the search threads of a server peer)
 *   latency <queries file> <k> <filter> <maxSeconds> -> {ms: number[], hits}
 *   rank <queries file> <k>                        -> {rankings: string[][]} (article ids, best first)
 *   throughput <queries file> <k> <filter> <threads> <maxSeconds> <minSeconds> -> {seconds, queries}
 *     (the list cycled until maxSeconds, or until it was taken whole and minSeconds passed: node/repetition.ts)
 *   memory                                         -> {rssMiB, peakRssMiB}
 *   versions                                       -> {name: version, ...}
 *   quit
 * <filter> is "-" or "YYYYMMDD:YYYYMMDD:type".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { buildSync } from 'esbuild';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { LUCENE_JARS, luceneJar } from './availability.js';
import type { PeerName } from './config.js';

/** The Node peers' harness bundled to plain JavaScript for the engine peers (their engine itself is dist/). */
const COMPILED_HARNESS = path.resolve('bench', '.work', 'peers', 'peer-main.mjs');

/**
 * Bundles bench/peers/node/peer-main.ts and the harness modules it imports
 * into one JavaScript file (npm packages and dist/ stay imports), so the
 * engine peers' processes carry no TypeScript loader. MiniSearch and Orama
 * keep tsx: their throughput workers load TypeScript files beside the harness.
 */
export function buildCompiledHarness(): void {
  buildSync({
    entryPoints: [path.resolve('bench', 'peers', 'node', 'peer-main.ts')],
    outfile: COMPILED_HARNESS,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
}

function luceneClasspath(): string {
  const jars = readdirSync('/usr/share/java');
  return LUCENE_JARS.map((prefix) => {
    const jar = luceneJar(prefix, jars);
    if (!jar) throw new Error(`${prefix}*.jar not found in /usr/share/java: run bench/peers/install.sh`);
    return path.join('/usr/share/java', jar);
  }).join(':');
}

function commandOf(peer: PeerName): [string, string[]] {
  const dir = path.resolve('bench', 'peers');
  switch (peer) {
    case 'engine':
    case 'engine-http':
      // Plain JavaScript, as `npm start` runs: tsx's loader would add ~30 MiB to the RSS measured.
      return [process.execPath, ['--max-old-space-size=20000', COMPILED_HARNESS, peer]];
    case 'minisearch':
    case 'orama':
      // In-memory peers need a large heap at 1M paragraphs.
      return [process.execPath, ['--max-old-space-size=20000', '--import', 'tsx', path.join(dir, 'node', 'peer-main.ts'), peer]];
    case 'lucene':
      return ['java', ['-Xmx4g', '-cp', luceneClasspath(), path.join(dir, 'lucene', 'LucenePeer.java')]];
    case 'xapian':
      return ['/usr/bin/python3', [path.join(dir, 'python', 'xapian_peer.py')]];
    case 'sqlite-fts5':
      return ['/usr/bin/python3', [path.join(dir, 'python', 'sqlite_peer.py')]];
  }
}

export class PeerProcess {
  private readonly replies: string[] = [];
  private waiting: ((line: string | null) => void) | null = null;
  private exited = false;
  /** Why the process never ran (e.g. ENOENT: java not on PATH); it then emits no 'exit'. */
  private startError: Error | null = null;

  private constructor(
    readonly name: PeerName,
    private readonly child: ChildProcess,
  ) {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (!line.startsWith('@@ ')) {
        process.stderr.write(`  [${name}] ${line}\n`);
        return;
      }
      this.deliver(line.slice(3));
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) process.stderr.write(`  [${name}] ${line}\n`);
    });
    child.on('exit', () => {
      this.exited = true;
      this.deliver(null);
    });
    // Without these a peer that cannot start would crash the harness (an unhandled 'error') or leave it waiting for a reply.
    child.on('error', (error) => {
      this.startError = error;
      this.exited = true;
      this.deliver(null);
    });
    child.stdin!.on('error', () => {}); // EPIPE once the peer is gone: reported by call() as the peer's exit
  }

  static start(peer: PeerName): PeerProcess {
    const [command, args] = commandOf(peer);
    return PeerProcess.spawn(peer, command, args);
  }

  /** Runs a peer's program; start() picks it, tests give one that cannot start. */
  static spawn(peer: PeerName, command: string, args: string[]): PeerProcess {
    return new PeerProcess(peer, spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } }));
  }

  private deliver(line: string | null): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve(line);
    } else if (line !== null) this.replies.push(line);
  }

  private next(): Promise<string | null> {
    const queued = this.replies.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.exited) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  async call<T>(op: string, ...args: (string | number)[]): Promise<T> {
    this.child.stdin!.write([op, ...args].join('\t') + '\n');
    const line = await this.next();
    if (line === null && this.startError) throw new Error(`${this.name} could not start: ${this.startError.message}: run bench/peers/install.sh`);
    if (line === null) throw new Error(`${this.name} exited during "${op}"`);
    const reply = JSON.parse(line) as T & { error?: string };
    if (reply.error) throw new Error(`${this.name} ${op}: ${reply.error}`);
    return reply;
  }

  async quit(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin!.write('quit\n');
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
}
