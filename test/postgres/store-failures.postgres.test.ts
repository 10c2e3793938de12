/**
 * The PostgreSQL store when the database misbehaves: a connection lost in the middle of a write, a
 * statement the database gives up on, a full disk, a listener failing after a commit, a LISTEN
 * connection cut silently, and settings that cannot work at start. Each had ended the process, answered
 * 500, or left the replica deaf to other replicas' ACL changes.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { toErrorReply } from '../../src/http/platform/errors.js';
import { StoreUnavailableError } from '../../src/platform/errors.js';
import { openPostgresStore } from '../../src/platform/store/postgres.js';
import type { Store } from '../../src/platform/store/store.js';
import { schemaUrl } from './cluster.js';
import { testPostgresUrl } from './project.js';

const warnings: string[] = [];
const logger = { info: () => undefined, warn: (message: string) => void warnings.push(message) };
const opened: Store[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await Promise.all(opened.splice(0).map((store) => store.close()));
  warnings.length = 0;
});

/**
 * A store of a schema of its own, connecting with `settings` (libpq `options`, such as `-c lock_timeout=100`)
 * and more URL `parameters` (such as `&query_timeout=100`).
 */
async function freshStore(name: string, settings = '', parameters = ''): Promise<{ store: Store; url: string; schema: string }> {
  const url = await schemaUrl(testPostgresUrl()!, `${name}-${process.pid}-${Date.now()}`);
  const schema = /search_path%3D(\w+)/.exec(url)![1]!;
  const withSettings = settings === '' ? url : url.replace(/options=([^&]*)/, (_, options: string) => `options=${options}${encodeURIComponent(` ${settings}`)}`);
  const store = await openPostgresStore(withSettings + parameters, logger);
  opened.push(store);
  return { store, url, schema };
}

/** An administrator's connection to the cluster, closed after the test. */
async function adminClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: testPostgresUrl()! });
  await client.connect();
  cleanups.push(() => client.end());
  return client;
}

const put = (store: Store, key: string) => store.write(() => store.table('orgs').put(key, { label: key }));

/** Makes every insert into the schema's organizations table fail with PostgreSQL error `code`. */
async function raiseOnOrgInsert(schema: string, name: string, message: string, code: string): Promise<void> {
  const admin = await adminClient();
  await admin.query(`CREATE FUNCTION ${schema}.${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION '${message}' USING ERRCODE = '${code}'; END $$`);
  await admin.query(`CREATE TRIGGER ${name} BEFORE INSERT ON ${schema}.litserve_orgs FOR EACH ROW EXECUTE FUNCTION ${schema}.${name}()`);
}

describe('a write whose connection is lost between two statements', () => {
  test('fails as 503 with nothing of it stored, raises no uncaught error, and the store writes again', async () => {
    const applicationName = `lost-${process.pid}-${Date.now()}`;
    const { store } = await freshStore('lost-connection', `-c application_name=${applicationName}`);
    const admin = await adminClient();
    const writing = store.write(async () => {
      await store.table('orgs').put('first', { label: 'first' });
      // The transaction is idle between two statements: its connection is cut now.
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction'`,
        [applicationName],
      );
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // Until the backend has gone: the next statement then meets a closed connection, however loaded the machine.
      while ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0]!.pid])).rowCount! > 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await store.table('orgs').put('second', { label: 'second' });
    });
    await expect(writing).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await store.table('orgs').count()).toBe(0);
    await put(store, 'after');
    expect(await store.table('orgs').get('after')).toEqual({ label: 'after' });
  });
});

describe('a statement the database gives up on', () => {
  test('a lock_timeout under a table locked by maintenance is 503, for reads and writes, and passes once the lock is gone', async () => {
    const { store, schema } = await freshStore('lock-timeout', '-c lock_timeout=100');
    const admin = await adminClient();
    await admin.query('BEGIN');
    await admin.query(`LOCK TABLE ${schema}.litserve_orgs IN ACCESS EXCLUSIVE MODE`);
    const read = store.table('orgs').get('lab');
    await expect(read).rejects.toBeInstanceOf(StoreUnavailableError);
    const written = await put(store, 'lab').catch((error: Error) => error);
    expect(written).toBeInstanceOf(StoreUnavailableError);
    // Said as what it is: the store was reached, and gave up (it had said "cannot be reached").
    expect(toErrorReply(written as Error)).toMatchObject({
      status: 503,
      body: { reason: 'The platform store gave up on this request (a lock or statement timeout, or out of memory); retry later.' },
    });
    await expect(read).rejects.toThrow('The platform store gave up on this request');
    await admin.query('ROLLBACK');
    await put(store, 'lab');
    expect(await store.table('orgs').get('lab')).toEqual({ label: 'lab' });
  });

  test('a statement_timeout is 503', async () => {
    const { store, schema } = await freshStore('statement-timeout', '-c statement_timeout=100');
    const admin = await adminClient();
    await admin.query('BEGIN');
    await admin.query(`LOCK TABLE ${schema}.litserve_orgs IN ACCESS EXCLUSIVE MODE`);
    await expect(put(store, 'lab')).rejects.toThrow('The platform store gave up on this request');
    await admin.query('ROLLBACK');
  });

  test("pg's query_timeout (the client gives up) is 503", async () => {
    const { store, schema } = await freshStore('query-timeout', '', '&query_timeout=100');
    const admin = await adminClient();
    await admin.query('BEGIN');
    await admin.query(`LOCK TABLE ${schema}.litserve_orgs IN ACCESS EXCLUSIVE MODE`);
    await expect(store.table('orgs').get('lab')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(put(store, 'lab')).rejects.toBeInstanceOf(StoreUnavailableError);
    await admin.query('ROLLBACK');
    await put(store, 'lab');
  });

  test("the database's disk_full (53100) is 507 InsufficientStorage, nothing stored", async () => {
    const { store, schema } = await freshStore('disk-full');
    // PostgreSQL's own error when it cannot extend a file, raised where a real full disk would raise it.
    await raiseOnOrgInsert(schema, 'full_disk', 'could not extend file: No space left on device', '53100');
    const written = await put(store, 'lab').catch((error: Error) => error);
    expect(toErrorReply(written as Error)).toMatchObject({ status: 507, body: { '@type': 'InsufficientStorage' } });
    expect(await store.table('orgs').count()).toBe(0);
  });
});

describe('a write that conflicts at every attempt', () => {
  test('is 503 once its retries are spent, nothing stored', async () => {
    const { store, schema } = await freshStore('always-conflicting');
    // A serialization failure at every attempt, as writers that keep conflicting would raise.
    await raiseOnOrgInsert(schema, 'conflict', 'could not serialize access', '40001');
    const refused = put(store, 'lab');
    await expect(refused).rejects.toBeInstanceOf(StoreUnavailableError);
    // Busy, not unreachable: the message says which.
    await expect(refused).rejects.toThrow('The platform store is too busy: this write kept conflicting with concurrent ones; retry later.');
    expect(await store.table('orgs').count()).toBe(0);
  });
});

describe('a listener that fails after a commit', () => {
  test('leaves the write acknowledged, logs the failure, and every connection usable', async () => {
    const { store } = await freshStore('listener-fails');
    store.onAnnounce('acls', (key) => {
      if (key !== '*') throw new Error('reload failed');
    });
    const result = await store.write(async () => {
      await store.table('orgs').put('lab', { label: 'lab' });
      await store.announce('acls', 'lab');
      return 'committed';
    });
    expect(result).toBe('committed');
    expect(warnings.some((warning) => warning.includes('reload failed'))).toBe(true);
    // The connection went back to the pool once: 20 writes at once, more than the pool holds, all commit.
    await Promise.all(Array.from({ length: 20 }, (_, i) => put(store, `after-${i}`)));
    expect(await store.table('orgs').count()).toBe(21);
  });
});

/** A TCP relay to the cluster's unix socket that can stop relaying on the connections it holds, without closing them: a connection a firewall dropped. */
async function relay(socketPath: string): Promise<{ port: number; freeze(): void; close(): Promise<void> }> {
  const pairs: [Socket, Socket][] = [];
  const server: Server = createServer((incoming) => {
    const outgoing = connect(socketPath);
    incoming.pipe(outgoing).pipe(incoming);
    for (const socket of [incoming, outgoing]) socket.on('error', () => undefined);
    pairs.push([incoming, outgoing]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze() {
      for (const [incoming, outgoing] of pairs.splice(0)) {
        incoming.unpipe(outgoing);
        outgoing.unpipe(incoming);
        incoming.pause();
        outgoing.pause();
        cleanups.push(async () => void (incoming.destroy(), outgoing.destroy()));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a LISTEN connection cut silently', () => {
  test('is noticed by its heartbeat and replaced: notices reach the replica again, after a reload of everything', async () => {
    const { store: direct, url } = await freshStore('heartbeat');
    const socketDirectory = new URL(url).searchParams.get('host')!;
    const proxy = await relay(`${socketDirectory}/.s.PGSQL.5432`);
    cleanups.push(() => proxy.close());
    const viaProxy = url.replace(/^postgresql:\/\/\/postgres\?host=[^&]*/, `postgresql://127.0.0.1:${proxy.port}/postgres?sslmode=disable`);
    const replica = await openPostgresStore(viaProxy, logger, { heartbeatMs: 100 });
    cleanups.push(() => replica.close());
    const heard: string[] = [];
    replica.onAnnounce('acls', (key) => void heard.push(key));
    const announce = (key: string) => direct.write(() => direct.announce('acls', key));
    const hear = async (key: string, sendAgain?: () => Promise<unknown>) => {
      for (let waited = 0; !heard.includes(key); waited += 50) {
        if (waited > 20_000) throw new Error(`'${key}' never heard; heard ${JSON.stringify(heard)}`);
        // On a loaded machine a 100 ms heartbeat can go unanswered while nothing is cut: the replica then replaces its
        // connection (hearing '*') and a notice sent meanwhile is lost, as it should be. Those notices are sent again.
        if (sendAgain && waited > 0 && waited % 500 === 0) await sendAgain();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await announce('before');
    await hear('before', () => announce('before'));
    proxy.freeze();
    heard.length = 0;
    await announce('while-cut');
    // The notice sent into the cut connection is lost; the replica notices the cut and reloads everything.
    await hear('*');
    await announce('after');
    await hear('after', () => announce('after'));
    expect(warnings.some((warning) => warning.includes('no answer to a heartbeat'))).toBe(true);
  });
});

describe('settings that cannot work at start', () => {
  test('a role or database that does not exist is named with the setting, not in pg’s words alone', async () => {
    const cluster = testPostgresUrl()!;
    for (const [url, reason] of [
      [cluster.replace('user=postgres', 'user=nobody'), 'role "nobody" does not exist'],
      [cluster.replace(':///postgres?', ':///nowhere?'), 'database "nowhere" does not exist'],
    ] as const) {
      const opening = openPostgresStore(url, logger);
      await expect(opening).rejects.toThrow(`cannot use the platform store's database (--platform-store ${url}): ${reason}`);
    }
  });
});

describe("a role without a privilege the store needs", () => {
  /** A role of its own, granted `privileges` on the tables of `schema`; dropped after the test. */
  async function roleWith(schema: string, privileges: string): Promise<string> {
    const admin = await adminClient();
    const role = `r_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await admin.query(`GRANT ${privileges} ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
    cleanups.push(async () => {
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
    });
    return role;
  }

  test('is refused at start naming what it lacks (a role that could read but not write had started, then answered every write 500)', async () => {
    const { url, schema } = await freshStore('read-only-role');
    const role = await roleWith(schema, 'SELECT');
    const opening = openPostgresStore(url.replace('user=postgres', `user=${role}`), logger);
    await expect(opening).rejects.toThrow(/: its role lacks INSERT on litserve_\w+, UPDATE on litserve_\w+, DELETE on litserve_\w+, INSERT on litserve_\w+ and \d+ more: grant it SELECT, INSERT, UPDATE, DELETE on the litserve_ tables of its schema$/);
  });

  test('a privilege revoked while serving makes writes 503 naming the grant, not 500', async () => {
    const { url, schema } = await freshStore('revoked-role');
    const role = await roleWith(schema, 'SELECT, INSERT, UPDATE, DELETE');
    const store = await openPostgresStore(url.replace('user=postgres', `user=${role}`), logger);
    opened.push(store);
    await put(store, 'before');
    const admin = await adminClient();
    await admin.query(`REVOKE INSERT ON ${schema}.litserve_orgs FROM ${role}`);
    const error = await put(store, 'after').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(toErrorReply(error as Error).status).toBe(503);
    expect(((error as Error).cause as Error).message).toMatch(/^the database refuses this server's role: permission denied for table litserve_orgs \(grant it SELECT, INSERT, UPDATE, DELETE on the litserve_ tables\)$/);
  });
});
