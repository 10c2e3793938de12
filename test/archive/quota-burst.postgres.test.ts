/**
 * Archive creation counts against one ledger row shared by every replica. A burst of creations spread
 * over replicas must queue for it, not fail: under SERIALIZABLE alone they conflicted, and a quarter of
 * 400 had given up after their retries (503).
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ArchiveService } from '../../src/archive/archives.js';
import { userIdentity } from '../../src/platform/identities.js';
import { DEFAULT_AUTH, type TestServer, createProject, startServer } from '../platform/helpers.js';
import { TURN_LOCK_KEY_SQL } from '../../src/platform/store/postgres-writes.js';
import { schemaUrl } from '../postgres/cluster.js';
import { testPostgresUrl } from '../postgres/project.js';

const USERS = Array.from({ length: 10 }, (_, i) => `user-${i}`);
const AUTH = { ...DEFAULT_AUTH, acls: { '/': { 'local/alice': ['*'], ...Object.fromEntries(USERS.map((user) => [`local/${user}`, ['resources/read']])) } } };
const REPLICAS = 4;
const CREATIONS = 400;
const oneResource = { resources: [{ '@type': 'Resource', resourceId: 'r1' }] };

let replicas: TestServer[];
const sharedStore = `quota-burst-${Date.now()}`;
beforeAll(async () => {
  replicas = [];
  for (let i = 0; i < REPLICAS; i++) replicas.push(await startServer({ auth: AUTH, sharedStore, maxArchivesPerCaller: CREATIONS }));
  await createProject(replicas[0]!.app, 'org', 'proj');
});
afterAll(async () => {
  for (const replica of replicas) await replica.close();
});

test(`${CREATIONS} creations at once over ${REPLICAS} replicas all succeed, and the ledger counts each once`, async () => {
  const results = await Promise.allSettled(
    Array.from({ length: CREATIONS }, (_, i) =>
      replicas[i % REPLICAS]!.archives.create({ org: 'org', project: 'proj' }, `burst-${i}`, oneResource, userIdentity('local', USERS[i % USERS.length]!, [])),
    ),
  );
  const failures = results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason));
  expect(failures).toEqual([]);
  const { store } = replicas[0]!.platform;
  expect(await store.table('archive-holds').count()).toBe(CREATIONS);
  const holds = await store.table<{ bytes: number }>('archive-holds').range();
  expect(await store.table('archive-totals').get('stored-bytes')).toBe(holds.reduce((sum, hold) => sum + hold.value.bytes, 0));
}, 120_000);

/** Another server's session, holding the ledger's turn of the store `storeName` until `end` (or until it gives the turn back). */
async function holdLedgerTurn(storeName = sharedStore): Promise<{ giveBack(): Promise<unknown>; end(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: await schemaUrl(testPostgresUrl()!, storeName) });
  await holder.connect();
  const turn = ['litserve-turn-archive-ledger'];
  await holder.query(`SELECT pg_advisory_lock(${TURN_LOCK_KEY_SQL})`, turn);
  return { giveBack: () => holder.query(`SELECT pg_advisory_unlock(${TURN_LOCK_KEY_SQL})`, turn), end: () => holder.end() };
}

test("the turn is the store's own: a server of another store in the same database, holding its turn, holds up no creation here", async () => {
  const holder = await holdLedgerTurn(`${sharedStore}-elsewhere`);
  try {
    const started = Date.now();
    await replicas[1]!.archives.create({ org: 'org', project: 'proj' }, 'beside-another-store', oneResource, userIdentity('local', USERS[0]!, []));
    // Well under the 10 s a write waits for a turn held by its own store.
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    await holder.end();
  }
}, 60_000);

test('a creation waits its turn 10 s at most: past that (another server stuck in it), 503 too busy, nothing stored', async () => {
  // Another server stuck in the ledger's turn, never giving it back.
  const holder = await holdLedgerTurn();
  try {
    const { store } = replicas[0]!.platform;
    const archivesBefore = await store.table('archives').count();
    const started = Date.now();
    const refused = replicas[1]!.archives.create({ org: 'org', project: 'proj' }, 'stuck', oneResource, userIdentity('local', USERS[0]!, []));
    await expect(refused).rejects.toThrow('The platform store is too busy: this write waited its turn too long; retry later.');
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await store.table('archives').count()).toBe(archivesBefore);
  } finally {
    await holder.end();
  }
  // The turn free again, creations go through.
  await replicas[1]!.archives.create({ org: 'org', project: 'proj' }, 'after-stuck', oneResource, userIdentity('local', USERS[0]!, []));
}, 60_000);

test('opening the ledger waits for its turn past 10 s: a server starting while another fills it starts once that is done', async () => {
  // Another server filling the ledger for 12 s: its session holds the turn.
  const holder = await holdLedgerTurn();
  try {
    const released = new Promise((resolve) => setTimeout(resolve, 12_000)).then(() => holder.giveBack());
    const started = Date.now();
    const opened = await ArchiveService.open(replicas[2]!.platform, { ttlMs: 3_600_000, maxPerCaller: CREATIONS, maxStoreBytes: 1024 ** 3 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(11_900);
    await released;
    await opened.create({ org: 'org', project: 'proj' }, 'after-fill', oneResource, userIdentity('local', USERS[0]!, []));
  } finally {
    await holder.end();
  }
}, 60_000);

test('creations whose clients leave while another server holds the turn give up their places at once, and store nothing', async () => {
  const holder = await holdLedgerTurn();
  const ref = { org: 'org', project: 'proj' };
  const identity = userIdentity('local', USERS[1]!, []);
  try {
    // Whichever comes first in this server's queue tries the database's lock again and again; the other waits behind it in memory.
    const leaving = [new AbortController(), new AbortController()];
    const outcomes = Promise.allSettled(leaving.map((client, i) => replicas[1]!.archives.create(ref, `left-${i}`, oneResource, identity, client.signal)));
    // Long enough for both to have got through their checks to the ledger's queue.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const client of leaving) client.abort(new Error('client disconnected'));
    // Both give up while the turn is still held, not at the end of their 10 s wait.
    expect((await outcomes).map((outcome) => outcome.status === 'rejected' && (outcome.reason as Error).message)).toEqual(['client disconnected', 'client disconnected']);
  } finally {
    await holder.end();
  }
  // The turn free again, the next creation goes through; of those that left, nothing is stored or counted.
  await replicas[1]!.archives.create(ref, 'after-leaving', oneResource, identity);
  const { store } = replicas[0]!.platform;
  const stored = (await store.table('archives').range(['org/proj'])).map(({ key }) => (key as string[])[1]!);
  const held = (await store.table('archive-holds').range()).map(({ key }) => (key as string[])[2]!);
  for (const ids of [stored, held]) {
    expect(ids.filter((id) => id.includes('left-'))).toEqual([]);
    expect(ids.filter((id) => id.includes('after-leaving'))).toHaveLength(1);
  }
}, 60_000);
