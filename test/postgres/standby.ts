/**
 * A hot standby of a throw-away cluster (cluster.ts), for failover tests: a base backup of the primary,
 * started in its place (on the primary's socket, so the URL a server was given now leads to it) once the
 * primary is halted, and promoted when the test says. Run as the `postgres` user under root, as the cluster.
 */
import path from 'node:path';
import { type Cluster, postgresWorkspace, stopAndRemoveEvenIfKilled } from './cluster.js';

export interface Standby {
  /** Halts the primary and starts the standby on its socket, taking read-only connections. */
  takeOver(): void;
  /** Makes the standby a primary that takes writes. */
  promote(): void;
  stop(): void;
}

export function startStandby(primary: Cluster): Standby {
  const socketDir = new URL(primary.url).searchParams.get('host')!;
  const { dir, run } = postgresWorkspace('litserve-pg-standby-');
  const data = path.join(dir, 'data');
  const stop = stopAndRemoveEvenIfKilled(run, data, dir);
  // -R: a standby (standby.signal); it replays the backup's WAL and then takes read-only connections.
  run('pg_basebackup', ['-h', socketDir, '-U', 'postgres', '-D', data, '-R', '--checkpoint', 'fast']);
  // No primary to stream from once it has taken over: the primary's socket is its own.
  const settings = `-k ${socketDir} -c listen_addresses='' -c fsync=off -c max_connections=200 -c primary_conninfo=''`;
  return {
    takeOver() {
      primary.halt();
      run('pg_ctl', ['-D', data, '-o', settings, '-l', path.join(dir, 'log'), '-w', 'start']);
    },
    promote: () => run('pg_ctl', ['-D', data, '-w', 'promote']),
    stop,
  };
}
