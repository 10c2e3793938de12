/**
 * Runs the single executable the way it runs on a machine without Node: from
 * an empty directory, with an empty PATH, and (as root, where Linux allows
 * it) in a private mount namespace where every `node` binary is replaced by
 * /dev/null and the checkout's node_modules by an empty tmpfs. The namespace
 * also gives tests a read-only directory that root cannot write through.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';

function which(command: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

const UNSHARE = which('unshare');
const MOUNT = which('mount');

/** Every node this machine would run: PATH's, and the one running the tests. */
function nodeBinaries(): string[] {
  const candidates = [process.execPath, which('node'), '/usr/bin/node', '/usr/local/bin/node'].filter((p): p is string => p !== null);
  const existing = candidates.flatMap((p) => {
    try {
      return [realpathSync(p), p];
    } catch {
      return [];
    }
  });
  return [...new Set(existing)];
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** Whether this process may create a mount namespace (root, unshare and mount present, not forbidden by a container). */
export const namespaceAvailable =
  UNSHARE !== null && MOUNT !== null && spawnSync(UNSHARE, ['--mount', '--propagation', 'private', 'true']).status === 0;

export interface IsolatedOptions {
  cwd: string;
  env: Record<string, string>;
  /** Directories made read-only inside the namespace. */
  readOnly?: string[];
}

/** The shell script that hides Node, then execs the command. */
function hidingScript(options: IsolatedOptions): string {
  const mounts = [
    ...nodeBinaries().map((node) => `${MOUNT} --bind /dev/null ${quote(node)}`),
    `${MOUNT} -t tmpfs tmpfs ${quote(path.resolve('node_modules'))}`,
    ...(options.readOnly ?? []).flatMap((dir) => [`${MOUNT} --bind ${quote(dir)} ${quote(dir)}`, `${MOUNT} -o remount,bind,ro ${quote(dir)}`]),
  ];
  return `set -e; ${mounts.join('; ')}; exec "$@"`;
}

export function spawnIsolated(command: string, args: string[], options: IsolatedOptions): ChildProcess {
  const env = { PATH: '', HOME: options.cwd, ...options.env };
  if (!namespaceAvailable) return spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return spawn(UNSHARE!, ['--mount', '--propagation', 'private', '/bin/sh', '-c', hidingScript(options), 'isolated', command, ...args], {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runIsolated(command: string, args: string[], options: IsolatedOptions, timeoutMs = 120_000): Promise<RunResult> {
  const child = spawnIsolated(command, args, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
