/**
 * The archive quotas bound two server processes sharing one PostgreSQL store
 * together, as docs/DEPLOY.md ("Several replicas") says: creations spread over
 * both replicas at once are admitted up to the bounds and no further, two
 * replicas opening a store without a ledger at once fill it once, and the
 * purge running under creations keeps the ledger equal to the stored archives.
 * The ledger is checked against the archives table itself, read with pg.
 * Runs in the `postgresql` test project only.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { definitionBytes } from '../../src/archive/quota.js';
import type { StoredArchive } from '../../src/archive/archives.js';
import { principalKey } from '../../src/platform/identities.js';
import { FIXTURE_ARTICLES } from '../http/app-fixture.js';
import { schemaUrl } from '../postgres/cluster.js';
import { testPostgresUrl } from '../postgres/project.js';
import { type ServerProcess, kill, spawnServerProcess, waitUntilServing } from '../reliability/server-process.js';
import { tempDir, writeIndex } from '../search/helpers.js';

/** One public URL for both replicas, as behind a load balancer: stored ids (and so definition sizes) do not depend on which one answered. */
const PUBLIC_URL = 'http://litserve.test';
const ADMIN = 'quota-admin';
const CALLERS = ['bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy'] as const;
type Caller = (typeof CALLERS)[number];
const tokenOf = (caller: Caller) => `token-${caller}`;

let dir: string;
let cleanup: () => Promise<void>;
let indexDir: string;
let authFile: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('litserve-quota-replicas-'));
  indexDir = path.join(dir, 'index');
  await writeIndex(indexDir, FIXTURE_ARTICLES);
  authFile = path.join(dir, 'auth.json');
  // The callers may only read: creating an archive needs no more, which is why it is bounded.
  const tokens = Object.fromEntries([[ADMIN, { realm: 'local', subject: 'admin' }], ...CALLERS.map((caller) => [tokenOf(caller), { realm: 'local', subject: caller }])]);
  const acls = { '/': { 'local/admin': ['*'], ...Object.fromEntries(CALLERS.map((caller) => [`local/${caller}`, ['resources/read']])) } };
  await writeFile(authFile, JSON.stringify({ tokens, acls }));
});
afterAll(() => cleanup?.());

interface Replicas {
  a: ServerProcess;
  b: ServerProcess;
  /** The store's URL, for reading its tables. */
  store: string;
  stop(): Promise<void>;
}

/** Starts both replicas at once (neither waits for the other to be serving) over one store and one blob directory. */
async function startReplicas(store: string, name: string, settings: string[]): Promise<Replicas> {
  const flags = ['--platform-store', store, '--blob-dir', path.join(dir, `${name}-blobs`), '--public-url', PUBLIC_URL, ...settings];
  const spawned = await Promise.all(['a', 'b'].map((replica) => spawnServerProcess({ dataDir: path.join(dir, `${name}-${replica}`), indexDir, authFile, extraFlags: flags })));
  const stop = async () => void (await Promise.all(spawned.map(kill)));
  // One that does not start is no reason to leave the other running.
  await Promise.all(spawned.map(waitUntilServing)).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { a: spawned[0]!, b: spawned[1]!, store, stop };
}

async function createProject(replica: ServerProcess): Promise<void> {
  for (const url of ['/v1/orgs/lab', '/v1/projects/lab/box']) {
    const response = await fetch(`${replica.base}${url}`, { method: 'PUT', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: '{}' });
    expect(response.status, url).toBe(201);
  }
}

/** A definition of `entries` resources, each under a path of about 100 characters: its size grows with `entries` alone. */
function definition(id: string, entries: number) {
  return { resources: Array.from({ length: entries }, (_, i) => ({ '@type': 'Resource', resourceId: 'r1', path: `/${id}/${String(i).padStart(3, '0')}-${'x'.repeat(80)}.json` })) };
}

interface Answer {
  id: string;
  status: number;
  type: string | undefined;
  retryAfter: string | null;
}

async function createArchive(replica: ServerProcess, caller: Caller, id: string, entries = 1): Promise<Answer> {
  const response = await fetch(`${replica.base}/v1/archives/lab/box/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${tokenOf(caller)}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(definition(id, entries)),
  });
  const body = (await response.json()) as { '@type'?: string };
  return { id, status: response.status, type: body['@type'], retryAfter: response.headers.get('retry-after') };
}

async function archiveStatus(replica: ServerProcess, id: string): Promise<number> {
  const response = await fetch(`${replica.base}/v1/archives/lab/box/${id}`, { headers: { authorization: `Bearer ${ADMIN}`, accept: 'application/json' } });
  await response.arrayBuffer();
  return response.status;
}

/** A 503 that says the store gave up after its retries (not a refusal by a bound): allowed, counted, reported. */
const storeGaveUp = (answer: Answer) => answer.status === 503 && answer.type === 'ServiceUnavailable' && answer.retryAfter !== null;

/** How the answers divide, e.g. `{ '201': 5, '429 ArchiveQuotaExceeded': 7 }`. */
function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const kind = answer.status === 201 ? '201' : storeGaveUp(answer) ? '503 store gave up' : `${answer.status} ${answer.type}`;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

interface Counted {
  bytes: number;
  expiresAt: number;
}

/** The stored archives as the ledger should count them, the ledger's holds, and its total, all read in one snapshot. */
async function readLedger(store: string): Promise<{ archives: Map<string, Counted>; holds: Map<string, Counted>; totals: number[] }> {
  const client = new pg.Client({ connectionString: store });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const archiveRows = (await client.query<{ value: string }>('SELECT value FROM litserve_archives')).rows;
    const holdRows = (await client.query<{ key_json: string; value: string }>('SELECT key_json, value FROM litserve_archive_holds')).rows;
    const totalRows = (await client.query<{ value: string }>('SELECT value FROM litserve_archive_totals')).rows;
    await client.query('COMMIT');
    const archives = new Map(
      archiveRows.map(({ value }) => {
        const archive = JSON.parse(value) as StoredArchive;
        const key = JSON.stringify([principalKey(archive.createdBy), archive.project, archive.id]);
        return [key, { bytes: definitionBytes(archive.entries), expiresAt: archive.expiresAt }];
      }),
    );
    const holds = new Map(holdRows.map(({ key_json, value }) => [key_json, JSON.parse(value) as Counted]));
    return { archives, holds, totals: totalRows.map(({ value }) => JSON.parse(value) as number) };
  } finally {
    await client.end();
  }
}

const sumOfBytes = (counted: Map<string, Counted>) => [...counted.values()].reduce((total, { bytes }) => total + bytes, 0);

/** One hold per stored archive, with its bytes and expiry, and one total: the sum of the holds. */
async function expectLedgerMatchesArchives(store: string): Promise<void> {
  const { archives, holds, totals } = await readLedger(store);
  expect(holds).toEqual(archives);
  expect(totals).toEqual([sumOfBytes(holds)]);
}

async function sql(store: string, statements: string): Promise<void> {
  const client = new pg.Client({ connectionString: store });
  await client.connect();
  try {
    await client.query(statements);
  } finally {
    await client.end();
  }
}

/**
 * Holds an ACCESS EXCLUSIVE lock on `table` until released: whoever reads it waits, and whoever waits
 * for a lock that one holds (a turn, a row) waits too, so two servers starting are held together there.
 */
async function lockTable(store: string, table: string) {
  const client = new pg.Client({ connectionString: store });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    /**
     * Resolves once `count` sessions wait for this lock, or for one that a session waiting for it holds, or
     * for a turn of writes (Store.writeInTurn), which a session waits for by trying its lock again and again
     * (the cluster's other sessions aside).
     */
    async waiters(count: number): Promise<void> {
      const deadline = Date.now() + 30_000;
      const waiting = async () => {
        // This session's transaction would otherwise keep reading the activity it first saw.
        await client.query('SELECT pg_stat_clear_snapshot()');
        return (
          await client.query<{ count: number }>(
            `WITH behind_this AS (SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid)))
             SELECT count(*)::integer AS count FROM pg_stat_activity
             WHERE pid IN (SELECT pid FROM behind_this) OR pg_blocking_pids(pid) && ARRAY(SELECT pid FROM behind_this)
                OR (pid <> pg_backend_pid() AND query LIKE 'SELECT pg_try_advisory_lock(%')`,
          )
        ).rows[0]!.count;
      };
      while ((await waiting()) < count) {
        if (Date.now() > deadline) throw new Error(`fewer than ${count} sessions came to wait for a lock behind ${table}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async release(): Promise<void> {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

const MAX_PER_CALLER = 5;
/** The least the setting allows: room for a few of the large definitions below (their exact size is measured, not assumed). */
const MAX_STORE_BYTES = 1024 ** 2;
const LARGE = 800;
const BOUNDS = ['--max-archives-per-caller', String(MAX_PER_CALLER), '--max-archive-store-bytes', String(MAX_STORE_BYTES)];

describe('two replicas over one PostgreSQL store share the archive quotas', () => {
  let replicas: Replicas;
  beforeAll(async () => {
    const store = await schemaUrl(testPostgresUrl()!, `quota-replicas-${dir}`);
    replicas = await startReplicas(store, 'bounds', BOUNDS);
    await createProject(replicas.a);
  });
  afterAll(() => replicas?.stop());

  test(`12 concurrent creations by one caller, alternating replicas: exactly ${MAX_PER_CALLER} are stored, the rest 429`, async () => {
    const { a, b } = replicas;
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => createArchive(i % 2 === 0 ? a : b, 'bob', `bob-${i}`)));
    console.info('per caller, 12 concurrent creations:', tally(answers));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MAX_PER_CALLER);
    for (const answer of answers.filter((answer) => answer.status !== 201)) {
      if (!storeGaveUp(answer)) expect([answer.status, answer.type]).toEqual([429, 'ArchiveQuotaExceeded']);
    }
    // Exactly the acknowledged archives are stored, whichever replica is asked.
    for (const [i, answer] of answers.entries()) expect([answer.id, await archiveStatus(i % 2 === 0 ? b : a, answer.id)]).toEqual([answer.id, answer.status === 201 ? 200 : 404]);
    const { holds } = await readLedger(replicas.store);
    expect([...holds.keys()].filter((key) => key.startsWith('["user:local:bob"'))).toHaveLength(MAX_PER_CALLER);
    await expectLedgerMatchesArchives(replicas.store);
  });

  test('12 concurrent large creations by six callers, alternating replicas: stored up to the total bound, the rest 503 ArchiveStorageFull', async () => {
    const { a, b } = replicas;
    const before = sumOfBytes((await readLedger(replicas.store)).archives);
    const callers = CALLERS.slice(1, 7);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => createArchive(i % 2 === 0 ? a : b, callers[i % callers.length]!, `large-${String(i).padStart(2, '0')}`, LARGE)));
    console.info('total bytes, 12 concurrent creations:', tally(answers));
    const { archives } = await readLedger(replicas.store);
    const sizes = new Set([...archives].filter(([key]) => key.includes('large-')).map(([, archive]) => archive.bytes));
    expect(sizes.size).toBe(1);
    const [size] = sizes;
    const fitting = Math.floor((MAX_STORE_BYTES - before) / size!);
    // The settings leave room for some of the twelve, not all: otherwise the bound would not be exercised.
    expect(fitting).toBeGreaterThanOrEqual(2);
    expect(fitting).toBeLessThan(12);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(fitting);
    for (const answer of answers.filter((answer) => answer.status !== 201)) {
      if (!storeGaveUp(answer)) expect([answer.status, answer.type]).toEqual([503, 'ArchiveStorageFull']);
    }
    for (const [i, answer] of answers.entries()) expect([answer.id, await archiveStatus(i % 2 === 0 ? b : a, answer.id)]).toEqual([answer.id, answer.status === 201 ? 200 : 404]);
    expect(sumOfBytes((await readLedger(replicas.store)).archives)).toBeLessThanOrEqual(MAX_STORE_BYTES);
    await expectLedgerMatchesArchives(replicas.store);
  });

  test('two replicas starting together on archives without a ledger fill it once, and the bounds hold after', async () => {
    const archivesBefore = (await readLedger(replicas.store)).archives;
    expect(archivesBefore.size).toBeGreaterThan(MAX_PER_CALLER);
    await replicas.stop();
    // A store written before the ledger: archives, and no holds nor total.
    await sql(replicas.store, 'DELETE FROM litserve_archive_holds; DELETE FROM litserve_archive_totals;');
    expect((await readLedger(replicas.store)).holds.size).toBe(0);
    // Both replicas open the ledger by reading its total: held there (one may wait behind the other's lock), they go on together.
    const gate = await lockTable(replicas.store, 'litserve_archive_totals');
    const starting = startReplicas(replicas.store, 'bounds', BOUNDS);
    const held = await gate.waiters(2).then(() => undefined, (error: unknown) => error);
    await gate.release();
    replicas = await starting;
    if (held !== undefined) throw held;
    const { a, b } = replicas;
    const { archives } = await readLedger(replicas.store);
    expect(archives).toEqual(archivesBefore);
    await expectLedgerMatchesArchives(replicas.store);

    // Bob holds his five: refused on both replicas, concurrently.
    const bob = await Promise.all([a, b, a, b].map((replica, i) => createArchive(replica, 'bob', `bob-after-refill-${i}`)));
    expect(bob.filter((answer) => !storeGaveUp(answer)).map((answer) => [answer.status, answer.type])).toEqual(
      bob.filter((answer) => !storeGaveUp(answer)).map(() => [429, 'ArchiveQuotaExceeded']),
    );
    // The store is as full as the large definitions allow: a caller holding none is refused one on both replicas.
    const large = await Promise.all([a, b].map((replica, i) => createArchive(replica, 'judy', `large-after-refill-${i}`, LARGE)));
    expect(large.filter((answer) => !storeGaveUp(answer)).map((answer) => [answer.status, answer.type])).toEqual(
      large.filter((answer) => !storeGaveUp(answer)).map(() => [503, 'ArchiveStorageFull']),
    );
    console.info('after the refill:', tally([...bob, ...large]));
    expect((await readLedger(replicas.store)).archives).toEqual(archivesBefore);
    await expectLedgerMatchesArchives(replicas.store);
  });
});

async function archiveCount(store: string): Promise<number> {
  const client = new pg.Client({ connectionString: store });
  await client.connect();
  try {
    return (await client.query<{ count: number }>('SELECT count(*)::integer AS count FROM litserve_archives')).rows[0]!.count;
  } finally {
    await client.end();
  }
}

describe('the purge of expired archives while both replicas create more', () => {
  const TTL_MS = 2000;
  const CREATING_MS = 4 * TTL_MS;
  let replicas: Replicas;
  beforeAll(async () => {
    const store = await schemaUrl(testPostgresUrl()!, `quota-replicas-purge-${dir}`);
    // The purge runs every TTL_MS on each replica (purgeInterval), one of them at a time.
    replicas = await startReplicas(store, 'purge', ['--archive-ttl', `${TTL_MS}ms`, '--max-archives-per-caller', '1000']);
    await createProject(replicas.a);
  });
  afterAll(() => replicas?.stop());

  test('leaves the total equal to the holds, and the holds one to one with the stored archives', async () => {
    const { a, b } = replicas;
    const answers: Answer[] = [];
    let creating = true;
    const worker = async (caller: Caller, replica: ServerProcess) => {
      for (let i = 0; creating; i++) answers.push(await createArchive(replica, caller, `${caller}-${i}`, 1 + (i % 5)));
    };
    // Eight callers creating without pause: the pressure under which a purge that conflicted with them all gave up.
    const workers = CALLERS.slice(0, 8).map((caller, i) => worker(caller, i % 2 === 0 ? a : b));
    // The stored archives, counted as creations go on: a count that falls is a purge that ran meanwhile.
    let purgesSeen = 0;
    let previous = 0;
    const deadline = Date.now() + CREATING_MS;
    while (Date.now() < deadline) {
      const stored = await archiveCount(replicas.store);
      if (stored < previous) purgesSeen++;
      previous = stored;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    creating = false;
    await Promise.all(workers);
    console.info(`purge under creations: ${purgesSeen} purge(s) seen;`, tally(answers));

    expect(purgesSeen).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.status !== 201 && !storeGaveUp(answer))).toEqual([]);
    const { archives } = await readLedger(replicas.store);
    expect(archives.size).toBeLessThan(answers.filter((answer) => answer.status === 201).length);
    await expectLedgerMatchesArchives(replicas.store);
    for (const replica of [a, b]) expect(replica.output()).not.toContain('purging expired archives failed');
  });
});
