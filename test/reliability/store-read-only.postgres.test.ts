/**
 * A PostgreSQL platform store that takes reads but no writes (made read-only for maintenance, or a hot
 * standby the URL leads to after a failover): a write answers 503 ServiceUnavailable with Retry-After (it
 * had been 500 UnexpectedError with a stack), changes nothing, is logged as one warn line saying the
 * database is read-only, and succeeds again once the database takes writes. A replica starts on such a
 * database when its schema is at its version (the start writes nothing), with the same answers; on a standby,
 * which refuses LISTEN, its LISTEN connection is retried with the back-off until the promotion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { type Cluster, postgresUnavailable, schemaUrl, startCluster } from '../postgres/cluster.js';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { capturingLogger } from '../http/captured-log.js';
import { startStandby, type Standby } from '../postgres/standby.js';
import { openPostgresStore } from '../../src/platform/store/postgres.js';

const TOKEN = 'store-read-only-admin';
const AUTH = { tokens: { [TOKEN]: { realm: 'local', subject: 'admin' } }, acls: { '/': { 'local/admin': ['*'] } } };
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** As an operator would: `alter system` and a reload, waited for until a new session sees it (every session then has been told). */
async function setReadOnly(clusterUrl: string, on: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(`ALTER SYSTEM SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end();
  }
  for (;;) {
    const probe = new pg.Client({ connectionString: clusterUrl });
    await probe.connect();
    const { rows } = await probe.query<{ default_transaction_read_only: string }>('SHOW default_transaction_read_only');
    await probe.end();
    if (rows[0]!.default_transaction_read_only === (on ? 'on' : 'off')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Request = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) => Promise<LightMyRequestResponse>;

/** Writes while the database takes none: each 503 with Retry-After, nothing stored, one warn line each naming the read-only database. */
async function expectWritesRefused(request: Request, lines: ReturnType<typeof capturingLogger>['lines'], storeUrl: string): Promise<void> {
  const before = lines.length;
  for (const [method, url, payload] of [
    ['PUT', '/v1/resources/lab/a/_/during', { name: 'during' }],
    ['PUT', '/v1/resources/lab/a/_/before?rev=1', { name: 'changed' }],
    ['POST', '/v1/archives/lab/a', { resources: [{ '@type': 'Resource', resourceId: 'before', path: '/before.json' }] }],
    ['PUT', '/v1/archives/lab/a/kept', { resources: [{ '@type': 'Resource', resourceId: 'before', path: '/before.json' }] }],
  ] as const) {
    const response = await request(method, url, payload);
    expect([method, url, response.statusCode, response.json()['@type']]).toEqual([method, url, 503, 'ServiceUnavailable']);
    expect(response.headers['retry-after']).toBe('5');
  }
  const logged = lines.slice(before);
  expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  const unavailable = logged.filter((line) => line.msg === 'platform store unavailable');
  expect(unavailable.map((line) => line.level)).toEqual([40, 40, 40, 40]);
  for (const line of unavailable) expect(line['cause']).toMatch(/^the database is read-only \(a hot standby, or default_transaction_read_only is on\): /);
  // Reads go on, and nothing was written.
  expect((await request('GET', '/v1/resources/lab/a/_/during')).statusCode).toBe(404);
  const kept = await request('GET', '/v1/resources/lab/a/_/before');
  expect([kept.statusCode, kept.json()['name'], kept.json()['_rev']]).toEqual([200, 'before', 1]);
  expect((await request('GET', '/v1/archives/lab/a/kept')).statusCode).toBe(404);
  expect(await archivesStored(storeUrl)).toBe(0);
}

/** The archives in the store's schema: a POST names none that a test could ask for. */
async function archivesStored(storeUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: storeUrl });
  await client.connect();
  try {
    return (await client.query<{ count: number }>('SELECT count(*)::integer AS count FROM litserve_archives')).rows[0]!.count;
  } finally {
    await client.end();
  }
}

/** A store at `url` listening to `channel`: what it heard (once something was), and what it logged. */
async function listenOn(url: string, channel: string) {
  const lines: string[] = [];
  const store = await openPostgresStore(url, { info: (message) => lines.push(`info ${message}`), warn: (message) => lines.push(`warn ${message}`) });
  const keys: string[] = [];
  let heardMore: () => void = () => undefined;
  store.onAnnounce(channel, (key) => {
    keys.push(key);
    heardMore();
  });
  let counted = 0;
  /** The keys heard, once one more than last time was. */
  const heard = async () => {
    if (keys.length === counted) await new Promise<void>((resolve) => (heardMore = resolve));
    counted = keys.length;
    return [...keys];
  };
  return { store, lines, heard };
}

describe.skipIf(postgresUnavailable() !== null)('a platform store that takes no writes', () => {
  let cluster: Cluster;
  let standby: Standby | undefined;
  const fixtures: Fixture[] = [];

  beforeAll(() => {
    cluster = startCluster();
  });
  afterAll(async () => {
    for (const fixture of fixtures) await fixture.close();
    standby?.stop();
    cluster?.stop();
  });

  /** A server on the store at `url`, and its log. */
  const open = async (url: string) => {
    const { lines, logger } = capturingLogger();
    const fixture = await fixtureApp(undefined, {}, { auth: AUTH, flags: ['--platform-store', url], logger });
    fixtures.push(fixture);
    const request: Request = (method, target, payload) => fixture.app.inject({ method, url: target, headers, ...(payload && { payload }) });
    return { request, lines };
  };
  /** A server on a new store at `url`, holding the organization, project and resource the tests read and change. */
  const serve = async (url: string) => {
    const { request, lines } = await open(url);
    expect((await request('PUT', '/v1/orgs/lab', {})).statusCode).toBe(201);
    expect((await request('PUT', '/v1/projects/lab/a', {})).statusCode).toBe(201);
    expect((await request('PUT', '/v1/resources/lab/a/_/before', { name: 'before' })).statusCode).toBe(201);
    return { request, lines, url };
  };

  it('answers writes 503 with Retry-After while default_transaction_read_only is on, and takes them once it is off', async () => {
    const { request, lines, url } = await serve(await schemaUrl(cluster.url, 'store-read-only'));
    const unmigrated = await schemaUrl(cluster.url, 'store-read-only-unmigrated');
    await setReadOnly(cluster.url, true);
    try {
      await expectWritesRefused(request, lines, url);
      // A server starting meanwhile on a schema at its version writes nothing to start: it reads, and its writes wait too.
      const replica = await open(url);
      expect((await replica.request('GET', '/v1/resources/lab/a/_/before')).statusCode).toBe(200);
      await expectWritesRefused(replica.request, replica.lines, url);
      // One whose schema needs migrating cannot write it: said so, not as an unknown failure.
      const starting = openPostgresStore(unmigrated, { info: () => undefined, warn: () => undefined });
      await expect(starting).rejects.toThrow("it is read-only (a hot standby, or default_transaction_read_only is on), and a start writes its schema: cannot execute CREATE TABLE in a read-only transaction");
    } finally {
      await setReadOnly(cluster.url, false);
    }
    expect((await request('PUT', '/v1/resources/lab/a/_/during', { name: 'during' })).statusCode).toBe(201);
  });

  it('answers writes 503 with Retry-After on a hot standby, and takes them once it is promoted', async () => {
    const { request, lines, url } = await serve(await schemaUrl(cluster.url, 'store-failover'));
    // A failover: the primary goes, a standby of it answers at the same address until it is promoted.
    standby = startStandby(cluster);
    standby.takeOver();
    // The pool hears of its connections to the halted primary once the event loop runs again (pg_ctl ran synchronously).
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expectWritesRefused(request, lines, url);
    // A store opened on the standby, whose LISTEN the standby refuses: asked again with the back-off, said once.
    const listening = await listenOn(url, 'probe');
    // A replica starting meanwhile on the standby: it serves reads, and its writes wait for the promotion too.
    const replica = await open(url);
    expect((await replica.request('GET', '/v1/resources/lab/a/_/before')).statusCode).toBe(200);
    await expectWritesRefused(replica.request, replica.lines, url);
    standby.promote();
    expect((await request('PUT', '/v1/resources/lab/a/_/during', { name: 'during' })).statusCode).toBe(201);
    expect((await replica.request('PUT', '/v1/resources/lab/a/_/after', { name: 'after' })).statusCode).toBe(201);
    expect(await listening.heard()).toEqual(['*']);
    expect(listening.lines).toEqual(['warn platform store: LISTEN connection lost (cannot execute LISTEN during recovery); reconnecting', 'info platform store: LISTEN connection restored']);
    // Listening since: a change another server announces is heard.
    const announcer = await openPostgresStore(url, { info: () => undefined, warn: () => undefined });
    await announcer.write(() => announcer.announce('probe', 'changed'));
    await announcer.close();
    expect(await listening.heard()).toEqual(['*', 'changed']);
    await listening.store.close();
  });
});
