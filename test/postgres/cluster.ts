/**
 * A throw-away PostgreSQL cluster from Debian's packages, for the tests: initdb
 * and pg_ctl in a temporary directory, listening only on a unix socket there.
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres`
 * user the Debian package creates (runuser). Durability is off: nothing here
 * outlives the test run.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';

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

/** A temporary directory PostgreSQL's programs may write (owned by `postgres` under root), and how to run them. */
export function postgresWorkspace(prefix: string): { dir: string; run: PostgresRunner } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const asRoot = process.getuid?.() === 0;
  const run: PostgresRunner = (command, args) =>
    execFileSync(asRoot ? 'runuser' : path.join(BIN, command), asRoot ? ['-u', 'postgres', '--', path.join(BIN, command), ...args] : args, {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  if (asRoot) {
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres']).toString()));
    chownSync(dir, uid!, gid!);
  }
  return { dir, run };
}

export function startCluster(): Cluster {
  const { dir, run } = postgresWorkspace('litserve-pg-');
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  const settings = `-k ${dir} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const start = () => run('pg_ctl', ['-D', data, '-o', settings, '-l', path.join(dir, 'log'), '-w', 'start']);
  start();
  return {
    url: `postgresql:///postgres?host=${dir}&user=postgres`,
    halt: () => run('pg_ctl', ['-D', data, '-m', 'fast', 'stop']),
    resume: start,
    stop: stopAndRemove(run, data, dir),
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
