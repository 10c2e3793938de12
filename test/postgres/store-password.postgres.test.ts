/**
 * The platform store's PostgreSQL password, found where pg finds it: the URL's (user-info or
 * `?password=`), else PGPASSWORD, else the pgpass file (PGPASSFILE or ~/.pgpass). The pgpass file is
 * read by the store rather than by pg, which warned on every start that its own support is deprecated.
 * Against a throw-away cluster that asks for a password (scram-sha-256).
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresUnavailable, postgresWorkspace, stopAndRemoveEvenIfKilled } from './cluster.js';
import { openPostgresStore } from '../../src/platform/store/postgres.js';

const PASSWORD = 'pgpass-secret';
const SILENT = { info: () => undefined, warn: () => undefined };

/** A cluster whose `postgres` role has PASSWORD, asked for on every connection; its URL carries none. */
function startPasswordCluster(): { url: string; stop(): void } {
  const { dir, run } = postgresWorkspace('litserve-pg-password-');
  const data = path.join(dir, 'data');
  const stop = stopAndRemoveEvenIfKilled(run, data, dir);
  const passwordFile = path.join(dir, 'password');
  writeFileSync(passwordFile, PASSWORD);
  run('initdb', ['-D', data, '-A', 'scram-sha-256', `--pwfile=${passwordFile}`, '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  run('pg_ctl', ['-D', data, '-o', `-k ${dir} -c listen_addresses='' -c fsync=off`, '-l', path.join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgresql:///postgres?host=${dir}&user=postgres`,
    stop,
  };
}

describe.skipIf(postgresUnavailable() !== null)('the platform store password', () => {
  let cluster: ReturnType<typeof startPasswordCluster>;
  let dir: string;
  const warnings: Error[] = [];
  const collectWarning = (warning: Error) => void warnings.push(warning);
  const environment = { PGPASSWORD: process.env['PGPASSWORD'], PGPASSFILE: process.env['PGPASSFILE'] };

  beforeAll(async () => {
    cluster = startPasswordCluster();
    dir = await mkdtemp(path.join(tmpdir(), 'store-password-'));
    process.on('warning', collectWarning);
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(environment)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  afterAll(async () => {
    process.off('warning', collectWarning);
    cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Points PGPASSFILE at a pgpass file (mode 0600, or the file is ignored) holding `lines`. */
  const pgpassFile = async (name: string, lines: string[]) => {
    const file = path.join(dir, name);
    await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    process.env['PGPASSFILE'] = file;
  };
  const opens = async (url: string) => {
    const store = await openPostgresStore(url, SILENT);
    await store.close();
  };
  // Warnings are emitted on the next tick.
  const warningsSoFar = async () => (await new Promise((resolve) => setImmediate(resolve)), warnings.map((warning) => `${warning.name}: ${warning.message}`));

  it('reads the pgpass file, the line matching host, port, database and user, without a warning', async () => {
    delete process.env['PGPASSWORD'];
    await pgpassFile('pgpass', ['otherhost:*:*:postgres:wrong', '*:*:*:someone-else:wrong', `*:5432:postgres:postgres:${PASSWORD}`]);
    await opens(cluster.url);
    expect(await warningsSoFar()).toEqual([]);
  });

  it('takes the URL password first, then PGPASSWORD, then the pgpass file', async () => {
    await pgpassFile('pgpass-wrong', ['*:*:*:*:wrong']);
    process.env['PGPASSWORD'] = 'wrong';
    await opens(`${cluster.url}&password=${PASSWORD}`);
    await opens(cluster.url.replace('postgresql:///', `postgresql://postgres:${PASSWORD}@/`));
    process.env['PGPASSWORD'] = PASSWORD;
    await opens(cluster.url);
    // Set, even empty, PGPASSWORD keeps the pgpass file from being read (as libpq and pg do).
    await pgpassFile('pgpass-right', [`*:*:*:*:${PASSWORD}`]);
    process.env['PGPASSWORD'] = '';
    await expect(opens(cluster.url)).rejects.toThrow(/cannot use the platform store's database/);
    delete process.env['PGPASSWORD'];
    await opens(cluster.url);
    expect(await warningsSoFar()).toEqual([]);
  });

  it('finds no password when no pgpass line matches', async () => {
    delete process.env['PGPASSWORD'];
    await pgpassFile('pgpass-other', [`otherhost:*:*:postgres:${PASSWORD}`, `*:*:otherdb:postgres:${PASSWORD}`, `*:*:*:someone-else:${PASSWORD}`]);
    await expect(opens(cluster.url)).rejects.toThrow(/cannot use the platform store's database.*password/);
  });
});
