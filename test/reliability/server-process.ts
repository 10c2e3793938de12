/** The real server as a child process (`src/main.ts serve`), for tests that kill it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

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
  base: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

export interface ServerProcessOptions {
  dataDir: string;
  indexDir: string;
  authFile: string;
  /** More settings; a flag given here overrides the defaults above it. */
  extraFlags?: string[];
}

export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', 'serve', '--data', options.dataDir, '--index', options.indexDir, '--auth-file', options.authFile,
      '--port', String(port), '--search-threads', '0', '--rate-limit', '0', '--public-url', base, '--log-level', 'warn', ...(options.extraFlags ?? [])],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, base, output: () => output, exited };
}

export async function kill(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
export const adminJson = { ...admin, 'content-type': 'application/json' };
