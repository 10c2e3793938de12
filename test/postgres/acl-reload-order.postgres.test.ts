/**
 * A replica reloads an ACL on each notice, and every ACL after its LISTEN connection comes back, each
 * reload reading on a connection of its own: two reloads may finish out of order. The older revision
 * must not replace the newer one in the permission checks' memory: it had stayed there (a revoked
 * grant still in force) until the next change of that ACL.
 */
import pg from 'pg';
import { afterEach, expect, test } from 'vitest';
import { AclService } from '../../src/platform/acls.js';
import { OPERATOR } from '../../src/platform/identities.js';
import { openPostgresStore } from '../../src/platform/store/postgres.js';
import type { Store, Table } from '../../src/platform/store/store.js';
import { schemaUrl } from './cluster.js';
import { testPostgresUrl } from './project.js';

const quiet = { info: () => undefined, warn: () => undefined };
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const until = (condition: () => boolean) =>
  new Promise<void>((resolve) => {
    const check = () => (condition() ? resolve() : setTimeout(check, 10));
    check();
  });

const grant = [{ identity: { '@type': 'User' as const, realm: 'local', subject: 'bob' }, permissions: ['resources/read' as const] }];

/**
 * A replica whose ACL reads can be held back: once `holdNext` names a read (`get` or `range`), the
 * next such read reads at once, and its answer waits for `letGo`. Another replica (`other`) writes.
 */
async function replicas(name: string) {
  const applicationName = `${name}-${process.pid}-${Date.now()}`;
  const url = await schemaUrl(testPostgresUrl()!, applicationName);
  const writer = await openPostgresStore(url, quiet);
  const replica = await openPostgresStore(`${url}&application_name=${applicationName}`, quiet);
  cleanups.push(() => writer.close(), () => replica.close());
  const control = { holdNext: null as 'get' | 'range' | null, held: false, answered: false, letGo: () => undefined as void };
  const hold = async <T>(read: 'get' | 'range', value: T): Promise<T> => {
    if (control.holdNext !== read) return value;
    control.holdNext = null;
    control.held = true;
    await new Promise<void>((resolve) => (control.letGo = resolve));
    control.answered = true;
    return value;
  };
  const acls = replica.table<never>('acls');
  const observed: Table<never> = { ...acls, get: async (key) => hold('get', await acls.get(key)), range: async (prefix, page) => hold('range', await acls.range(prefix, page)) };
  const observedStore: Store = { ...replica, table: <V>(table: Parameters<Store['table']>[0]) => (table === 'acls' ? observed : replica.table(table)) as Table<V> };
  const service = await AclService.open(observedStore, new Map(), true, () => 0);
  const other = await AclService.open(writer, new Map(), true, () => 0);
  /** After the held answer was given: the reload that read it has had its turn. */
  const answeredLate = async () => {
    control.letGo();
    await until(() => control.answered);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { service, other, control, answeredLate, applicationName };
}

/** Cuts the replica's LISTEN connection: once it is back, the replica reads every ACL. */
async function cutListenConnection(applicationName: string): Promise<void> {
  const admin = new pg.Client({ connectionString: testPostgresUrl()! });
  await admin.connect();
  cleanups.push(() => admin.end());
  await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`, [applicationName]);
}

test("a reload of one ACL that finishes after a newer one's leaves the newer revision in force", async () => {
  const { service, other, control, answeredLate } = await replicas('acl-order-one');
  control.holdNext = 'get';
  await other.replace('/org', grant, 0, OPERATOR);
  await until(() => control.held);
  await other.subtract('/org', grant, 1, OPERATOR);
  await until(() => service.stored('/org')?.rev === 2);
  await answeredLate();
  expect(service.stored('/org')).toMatchObject({ rev: 2, grants: {} });
});

test('the reload of every ACL after the LISTEN connection came back cannot undo a newer reload of one', async () => {
  const { service, other, control, answeredLate, applicationName } = await replicas('acl-order-all');
  await other.replace('/org', grant, 0, OPERATOR);
  await until(() => service.stored('/org')?.rev === 1);
  // The LISTEN connection is cut; once it is back, the replica reads every ACL (held back here).
  control.holdNext = 'range';
  await cutListenConnection(applicationName);
  await until(() => control.held);
  await other.subtract('/org', grant, 1, OPERATOR);
  await until(() => service.stored('/org')?.rev === 2);
  await answeredLate();
  expect(service.stored('/org')).toMatchObject({ rev: 2, grants: {} });
});

test('the reload of every ACL keeps an ACL created while it read', async () => {
  const { service, other, control, answeredLate, applicationName } = await replicas('acl-order-created');
  control.holdNext = 'range';
  await cutListenConnection(applicationName);
  await until(() => control.held);
  // A project created meanwhile: its ACL's own reload finishes before the reload of every ACL, which read without it.
  await other.replace('/org/new', grant, 0, OPERATOR);
  await until(() => service.stored('/org/new')?.rev === 1);
  await answeredLate();
  expect(service.stored('/org/new')).toMatchObject({ rev: 1 });
});
