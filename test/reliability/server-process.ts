/** The real server as a child process (`litserve serve`, compiled: test/compiled-server.ts), for tests that kill it. */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { spawnServe } from '../compiled-server.js';

export const ADMIN_TOKEN = 'crash-admin';

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function writeAdminAuthFile(dir: string): Promise<string> {
  const file = path.join(dir, 'auth.json');
  await writeFile(file, JSON.stringify({ tokens: { [ADMIN_TOKEN]: { realm: 'local', subject: 'admin' } }, acls: { '/': { 'local/admin': ['*'] } } }));
  return file;
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  base: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

export interface ServerProcessOptions {
  dataDir: string;
  /** Default: `<data>/index`, built from `--demo-corpus` on first start. */
  indexDir?: string;
  authFile: string;
  /** Default: a free one. Restarting on the same port keeps the public URL, so stored `_self` links and redirects stay valid. */
  port?: number;
  /** More settings; a flag given here overrides the defaults above it. */
  extraFlags?: string[];
}

/** Starts the process without waiting for it to serve. */
export async function spawnServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const run = spawnServe([
    '--data', options.dataDir, ...(options.indexDir === undefined ? [] : ['--index', options.indexDir]),
    '--auth-file', options.authFile, '--port', String(port), '--search-threads', '0', '--rate-limit', '0', '--public-url', base,
    '--log-level', 'warn', ...(options.extraFlags ?? []),
  ]);
  return { child: run.child, port, base, output: run.output, exited: run.exited.then(({ code }) => code) };
}

/** Resolves once /healthz answers; throws if the process exits first or takes over a minute. */
export async function waitUntilServing(server: ServerProcess): Promise<ServerProcess> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`server exited with ${server.child.exitCode}: ${server.output()}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${server.output()}`);
    try {
      if ((await fetch(`${server.base}/healthz`)).ok) return server;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  return waitUntilServing(await spawnServerProcess(options));
}

/** Kills `child` at once and waits until it has ended, so that no test leaves a process behind (ended already: returns). */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

export function kill(server: ServerProcess): Promise<void> {
  return killChild(server.child);
}

export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
export const adminJson = { ...admin, 'content-type': 'application/json' };
