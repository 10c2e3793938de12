/**
 * A throw-away PostgreSQL cluster from Debian's packages, for the tests: initdb
 * and pg_ctl in a temporary directory, listening only on a unix socket there.
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres`
 * user the Debian package creates (runuser). Durability is off: nothing here
 * outlives the test run, not even a run killed before its teardown (a watchdog
 * process, cluster-watchdog.ts, stops the server and removes its directory).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = '/usr/lib/postgresql/15/bin';
const WATCHDOG = fileURLToPath(new URL('./cluster-watchdog.ts', import.meta.url));

export interface Cluster {
  /** Connection URL of the `postgres` database over the unix socket. */
  url: string;
  /** Shuts the server down, keeping its data (a database that went away). */
  halt(): void;
  /** Starts the halted server again on its data. */
  resume(): void;
  stop(): void;
}

/** Why no cluster can be started here, or null when one can. */
export function postgresUnavailable(): string | null {
  if (!existsSync(path.join(BIN, 'initdb'))) return `PostgreSQL 15 is not installed (${BIN}/initdb missing: apt-get install postgresql)`;
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root and there is no postgres user to run PostgreSQL as';
    }
  }
  return null;
}

/** Runs a PostgreSQL program (`initdb`, `pg_ctl`, ...): as the `postgres` user under root. */
export type PostgresRunner = (command: string, args: string[]) => Buffer;

/** A PostgresRunner for this process (a watchdog process makes its own: a function cannot be handed to it). */
export function postgresRunner(): PostgresRunner {
  const asRoot = process.getuid?.() === 0;
  return (command, args) =>
    execFileSync(asRoot ? 'runuser' : path.join(BIN, command), asRoot ? ['-u', 'postgres', '--', path.join(BIN, command), ...args] : args, {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
}

/** A temporary directory PostgreSQL's programs may write (owned by `postgres` under root), and how to run them. */
export function postgresWorkspace(prefix: string): { dir: string; run: PostgresRunner } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  if (process.getuid?.() === 0) {
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres']).toString()));
    chownSync(dir, uid!, gid!);
  }
  return { dir, run: postgresRunner() };
}

export function startCluster(): Cluster {
  const { dir, run } = postgresWorkspace('litserve-pg-');
  const data = path.join(dir, 'data');
  const stop = stopAndRemoveEvenIfKilled(run, data, dir);
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  const settings = `-k ${dir} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const start = () => run('pg_ctl', ['-D', data, '-o', settings, '-l', path.join(dir, 'log'), '-w', 'start']);
  start();
  return {
    url: `postgresql:///postgres?host=${dir}&user=postgres`,
    halt: () => run('pg_ctl', ['-D', data, '-m', 'fast', 'stop']),
    resume: start,
    stop,
  };
}

/** Stops the server on `data` at once (if it runs: halted or never started is fine) and removes `dir`; once. */
export function stopAndRemove(run: PostgresRunner, data: string, dir: string): () => void {
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    } catch {
      // Not running.
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/**
 * stopAndRemove, which a watchdog also does should this process die first, however it dies: a test run
 * killed midway (SIGKILL included) runs no teardown, and its cluster had stayed running with its directory.
 * Call it before the server starts, so a death while it starts is covered too.
 */
export function stopAndRemoveEvenIfKilled(run: PostgresRunner, data: string, dir: string): () => void {
  // Detached (a session of its own), so the Ctrl-C that ends the run does not end its watchdog too.
  const watchdog = spawn(process.execPath, ['--import', 'tsx', WATCHDOG, data, dir], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  // The pipe to its stdin is how it learns of this process's death: neither keeps this process alive.
  watchdog.unref();
  (watchdog.stdin as Socket).unref();
  const stopAndRemoveNow = stopAndRemove(run, data, dir);
  return () => {
    stopAndRemoveNow();
    watchdog.kill();
  };
}

/** The URL of a schema of its own in the cluster (created if absent), named after `key`: one test server's store, or the store replicas share. */
export async function schemaUrl(clusterUrl: string, key: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  const { default: pg } = await import('pg');
  const schema = `t_${createHash('sha256').update(key).digest('hex').slice(0, 20)}`;
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } finally {
    await client.end();
  }
  return `${clusterUrl}&options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}
