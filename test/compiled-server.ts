/**
 * The server as the tests' child processes and worker threads run it: src/ compiled to plain JavaScript in
 * `.test-dist/` (as `npm run build` compiles it to dist/), by test/compiled-server.global-setup.ts before any test
 * file starts. A child started through tsx compiles and resolves every module through tsx's loader thread: about 1 s
 * more for each command (2.0 s against 1.0 s for a small `ingest`). The in-process servers' render and search threads
 * load their modules from here too (LITSERVE_COMPILED_SRC, set by vitest.config.ts: src/runtime/worker-module.ts): a
 * render thread through tsx took 0.6 s of CPU to start against 0.2 s. The suite starts a few hundred of each.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDist, distIsCurrent } from '../scripts/build-dist.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The compiled tree: directly under the checkout, as src/ is, so that modules find what lies beside src/ (data/demo). */
export const COMPILED_DIR = path.join(ROOT, '.test-dist');

/** The command line's entry point, compiled. */
export const COMPILED_MAIN = path.join(COMPILED_DIR, 'main.js');

/**
 * Compiles src/ into the compiled tree when it is missing or older than a source, so that what runs is this
 * checkout's code; resolves with the milliseconds the compiling took, or null when the tree was current.
 */
export async function compileServerIfStale(): Promise<number | null> {
  if (await distIsCurrent(COMPILED_DIR)) return null;
  const started = Date.now();
  await buildDist(COMPILED_DIR);
  return Date.now() - started;
}

export interface CommandRun {
  /** The exit code; null when the command was killed (by the 60 s bound, for one). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command line with `args` as a user does, in a child process, to its end (60 s at most). */
export function runCommand(args: string[], env: NodeJS.ProcessEnv = {}): CommandRun {
  const result = spawnSync(process.execPath, [COMPILED_MAIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A `serve` child process as a user starts it. */
export interface ServeRun {
  child: ChildProcess;
  /** Everything the process printed so far, both streams. */
  output(): string;
  /** Resolves with the exit code and the signal that ended the process. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `serve` with `args` (nothing added), without waiting for it: see `listening`. */
export function spawnServe(args: string[]): ServeRun {
  const child = spawn(process.execPath, [COMPILED_MAIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  // On 'close', once its output has been read to the end: at 'exit' the last lines may still be in the pipe.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited };
}

/** Resolves true once the server says it listens, false once it has ended first or after `timeoutMs`. */
export async function listening(run: ServeRun, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!run.output().includes('Server listening')) {
    if (run.child.exitCode !== null || run.child.signalCode !== null || Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
