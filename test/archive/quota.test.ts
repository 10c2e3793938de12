/** Archive creation is bounded: live archives per caller, and the total size of stored definitions. */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ARCHIVES_PER_READ, ArchiveService } from '../../src/archive/archives.js';
import { definitionBytes } from '../../src/archive/quota.js';
import type { Store, TableName } from '../../src/platform/store/store.js';
import { userIdentity } from '../../src/platform/identities.js';
import { StoreUnavailableError } from '../../src/platform/errors.js';
import { DEFAULT_AUTH, TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';

const AUTH = { ...DEFAULT_AUTH, acls: { '/': { 'local/alice': ['*'], 'local/bob': ['resources/read'], 'local/carol': ['resources/read'] } } };
const TTL = 3_600_000;
let now = Date.parse('2026-01-01T00:00:00Z');

function create(server: TestServer, token: string, id: string, entries = 1) {
  const resources = Array.from({ length: entries }, (_, i) => ({ '@type': 'Resource', resourceId: 'r1', path: `/copies/${id}/${i}.json` }));
  return server.app.inject({ method: 'PUT', url: `/v1/archives/org/proj/${id}`, headers: { ...bearer(token), accept: 'application/json' }, payload: { resources } });
}

const exists = async (server: TestServer, id: string) =>
  (await server.app.inject({ method: 'GET', url: `/v1/archives/org/proj/${id}`, headers: { ...bearer(TOKENS.alice), accept: 'application/json' } })).statusCode === 200;

describe('live archives per caller', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ auth: AUTH, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: 3 });
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server.close());

  test('a read-only caller gets 429 ArchiveQuotaExceeded past the bound, and nothing is stored', async () => {
    for (let i = 0; i < 3; i++) expect((await create(server, TOKENS.bob, `bob-${i}`)).statusCode).toBe(201);
    const refused = await create(server, TOKENS.bob, 'bob-3');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()['@type']).toBe('ArchiveQuotaExceeded');
    expect(refused.json().reason).toContain('--max-archives-per-caller');
    expect(await exists(server, 'bob-3')).toBe(false);
    // Another caller has its own quota.
    expect((await create(server, TOKENS.carol, 'carol-0')).statusCode).toBe(201);
  });

  test('expired archives stop counting, purged or not', async () => {
    now += TTL;
    expect((await create(server, TOKENS.bob, 'bob-after-expiry')).statusCode).toBe(201);
    await server.archives.purgeExpired();
    expect((await create(server, TOKENS.bob, 'bob-after-purge')).statusCode).toBe(201);
  });

  test('the quota survives a restart', async () => {
    const dataDir = server.dataDir;
    await server.stop();
    server = await startServer({ auth: AUTH, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: 3, dataDir });
    expect((await create(server, TOKENS.bob, 'bob-restart')).statusCode).toBe(201);
    expect((await create(server, TOKENS.bob, 'bob-over')).statusCode).toBe(429);
  });
});

describe('total size of stored definitions', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ auth: AUTH, clock: () => now, ttlMs: TTL, maxArchiveStoreBytes: 40_000 });
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server.close());

  test('creation is 503 ArchiveStorageFull once the bound is reached, until archives expire', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await create(server, i % 2 === 0 ? TOKENS.bob : TOKENS.carol, `big-${i}`, 100)).statusCode);
    expect(statuses).toContain(201);
    expect(statuses.at(-1)).toBe(503);
    const refused = await create(server, TOKENS.alice, 'one-more', 100);
    expect(refused.statusCode).toBe(503);
    expect(refused.json()['@type']).toBe('ArchiveStorageFull');
    expect(await exists(server, 'one-more')).toBe(false);
    now += TTL;
    expect((await create(server, TOKENS.alice, 'after-expiry', 100)).statusCode).toBe(201);
  });
});

describe('settings', () => {
  test('--max-archives-per-caller and --max-archive-store-bytes are settings with documented defaults', () => {
    const defaults = loadConfig([], {});
    expect(defaults.maxArchivesPerCaller).toBe(100);
    expect(defaults.maxArchiveStoreBytes).toBe(1024 ** 3);
    const set = loadConfig(['--max-archives-per-caller', '5', '--max-archive-store-bytes', String(64 * 1024 ** 2)], {});
    expect(set.maxArchivesPerCaller).toBe(5);
    expect(set.maxArchiveStoreBytes).toBe(64 * 1024 ** 2);
    expect(() => loadConfig(['--max-archives-per-caller', '0'], {})).toThrow();
  });
});

describe('the ledger the counts are kept in', () => {
  let server: TestServer;
  const count = 2 * ARCHIVES_PER_READ + 3;
  beforeAll(async () => {
    server = await startServer({ auth: AUTH, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: 1000 });
    await createProject(server.app, 'org', 'proj');
    for (let i = 0; i < count; i++) expect((await create(server, TOKENS.alice, `many-${i}`)).statusCode).toBe(201);
  });
  afterAll(() => server.close());

  /** A service over the same store whose reads of the archives table are recorded. */
  async function recordingService(options: { maxPerCaller: number }) {
    const reads: (number | undefined)[] = [];
    const logged: string[] = [];
    const logger = { ...server.platform.logger, info: (message: string) => void logged.push(message) };
    const { store } = server.platform;
    const recorded: Store = {
      ...store,
      table: <V>(name: TableName) => {
        const table = store.table<V>(name);
        return name !== 'archives' ? table : { ...table, range: (prefix, page) => (reads.push(page?.limit), table.range(prefix, page)) };
      },
    };
    const service = await ArchiveService.open({ ...server.platform, store: recorded, logger }, { ttlMs: TTL, maxStoreBytes: 1024 ** 3, ...options });
    return { service, reads, logged };
  }

  const alice = userIdentity('local', 'alice', []);
  const definition = { resources: [{ '@type': 'Resource', resourceId: 'r1' }] };

  test('is shared by every service over the store, and read, not rebuilt, at start', async () => {
    const { service, reads } = await recordingService({ maxPerCaller: count });
    expect(reads).toEqual([]);
    // The archives another service (the server's) created count here: alice holds exactly `count`, the bound.
    await expect(service.create({ org: 'org', project: 'proj' }, 'one-more', definition, alice)).rejects.toThrow(/already hold/);
  });

  test('is filled from the archives, a page at a time, in a store that has none', async () => {
    await server.platform.store.write(async () => {
      const holds = server.platform.store.table('archive-holds');
      for (const { key } of await holds.range()) await holds.remove(key);
      await server.platform.store.table('archive-totals').remove('stored-bytes');
    });
    const { service, reads, logged } = await recordingService({ maxPerCaller: count });
    expect(logged).toContain(`archive quota ledger filled from ${count} stored archive(s)`);
    expect(reads.length).toBeGreaterThanOrEqual(Math.ceil(count / ARCHIVES_PER_READ));
    expect(reads.every((limit) => limit !== undefined && limit <= ARCHIVES_PER_READ)).toBe(true);
    await expect(service.create({ org: 'org', project: 'proj' }, 'one-more', definition, alice)).rejects.toThrow(/already hold/);
    expect(await server.platform.store.table('archive-holds').count()).toBe(count);
  });

  test('finds the expired archives to purge without reading their definitions', async () => {
    const { service, reads } = await recordingService({ maxPerCaller: count });
    now += TTL;
    expect(await service.purgeExpired()).toBe(count);
    expect(reads).toEqual([]);
    expect(await exists(server, 'many-0')).toBe(false);
    expect(await server.platform.store.table('archive-holds').count()).toBe(0);
    expect(await server.platform.store.table('archive-totals').get('stored-bytes')).toBe(0);
  });

  test('is filled again when it counts fewer archives than are stored (an older version stored one)', async () => {
    const { store } = server.platform;
    const archive = { id: 'http://x/uncounted', project: 'org/proj', entries: [], createdAt: now, createdBy: alice.subject, expiresAt: now + TTL };
    await store.write(() => store.table('archives').put(['org/proj', archive.id], archive));
    const { service } = await recordingService({ maxPerCaller: 1 });
    expect(await store.table('archive-holds').count()).toBe(1);
    expect(await store.table('archive-totals').get('stored-bytes')).toBe(definitionBytes([]));
    await expect(service.create({ org: 'org', project: 'proj' }, 'one-more', definition, alice)).rejects.toThrow(/already hold 1/);
    // Counted, so purged once expired.
    now += TTL;
    expect(await service.purgeExpired()).toBe(1);
  });
});

describe('two servers over one store', () => {
  let first: TestServer;
  let second: ArchiveService;
  beforeAll(async () => {
    first = await startServer({ auth: AUTH, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: 2, maxArchiveStoreBytes: 4_000 });
    await createProject(first.app, 'org', 'proj');
    // The second server's archive service, over the same store (as PostgreSQL replicas share one).
    second = await ArchiveService.open(first.platform, { ttlMs: TTL, maxPerCaller: 2, maxStoreBytes: 4_000 });
  });
  afterAll(() => first.close());

  const definition = (id: string, entries = 1) => ({
    resources: Array.from({ length: entries }, (_, i) => ({ '@type': 'Resource', resourceId: 'r1', path: `/copies/${id}/${i}.json` })),
  });
  const bob = userIdentity('local', 'bob', []);
  const carol = userIdentity('local', 'carol', []);

  test('count one caller against one bound', async () => {
    expect((await create(first, TOKENS.bob, 'shared-0')).statusCode).toBe(201);
    await second.create({ org: 'org', project: 'proj' }, 'shared-1', definition('shared-1'), bob);
    await expect(second.create({ org: 'org', project: 'proj' }, 'shared-2', definition('shared-2'), bob)).rejects.toThrow(/already hold 2/);
    expect((await create(first, TOKENS.bob, 'shared-3')).statusCode).toBe(429);
  });

  test('count the stored bytes against one bound', async () => {
    // Two definitions of about 1,500 bytes on the second server, then a third on the first: over 4,000 only together.
    await second.create({ org: 'org', project: 'proj' }, 'bytes-0', definition('bytes-0', 10), carol);
    await second.create({ org: 'org', project: 'proj' }, 'bytes-1', definition('bytes-1', 10), carol);
    const other = await create(first, TOKENS.alice, 'bytes-on-first', 10);
    expect(other.statusCode).toBe(503);
    expect(other.json()['@type']).toBe('ArchiveStorageFull');
  });

  test('purging at once, remove each expired archive once, and leave the ledger empty', async () => {
    const { store } = first.platform;
    const stored = await store.table('archives').count();
    now += TTL;
    const [byFirst, bySecond] = await Promise.all([first.archives.purgeExpired(), second.purgeExpired()]);
    expect(byFirst + bySecond).toBe(stored);
    expect(await store.table('archives').count()).toBe(0);
    expect(await store.table('archive-holds').count()).toBe(0);
    expect(await store.table('archive-totals').get('stored-bytes')).toBe(0);
  });
});

describe('a creation whose write does not take', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ auth: AUTH, clock: () => now, ttlMs: TTL });
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server.close());

  test('counts nothing against the caller', async () => {
    // A store whose next write runs its action, then fails as a commit refused by a database gone away.
    const { store } = server.platform;
    let failNext = false;
    const failingOnce = <T>(action: () => Promise<T>) =>
      store.write(async () => {
        const result = await action();
        if (failNext) {
          failNext = false;
          throw new StoreUnavailableError(new Error('Connection terminated unexpectedly'));
        }
        return result;
      });
    const flaky: Store = { ...store, write: failingOnce, writeInTurn: (_turn, action) => failingOnce(action) };
    const service = await ArchiveService.open({ ...server.platform, store: flaky }, { ttlMs: TTL, maxPerCaller: 1, maxStoreBytes: 1024 ** 3 });
    failNext = true;
    const bob = userIdentity('local', 'bob', []);
    const definition = { resources: [{ '@type': 'Resource', resourceId: 'r1' }] };
    await expect(service.create({ org: 'org', project: 'proj' }, 'lost', definition, bob)).rejects.toThrow(StoreUnavailableError);
    expect(await exists(server, 'lost')).toBe(false);
    // The quota of one archive is still free.
    await expect(service.create({ org: 'org', project: 'proj' }, 'kept', definition, bob)).resolves.toMatchObject({ id: expect.stringContaining('kept') });
  });

  test('a write retried after a conflict counts once', async () => {
    // A store whose writes run their action once in a transaction that is then rolled back, then again,
    // as PostgreSQL's retries of a serialization failure do. (Not a serialization failure itself: the
    // PostgreSQL store would retry that inside.)
    const { store } = server.platform;
    const rolledBack = new Error('rolled back, as a conflicting transaction is');
    const twice = async <T>(action: () => Promise<T>) => {
      await store.write(async () => {
        await action();
        throw rolledBack;
      }).catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
      return store.write(action);
    };
    const retrying: Store = { ...store, write: twice, writeInTurn: (_turn, action) => twice(action) };
    const service = await ArchiveService.open({ ...server.platform, store: retrying }, { ttlMs: TTL, maxPerCaller: 1, maxStoreBytes: 1024 ** 3 });
    const carol = userIdentity('local', 'carol', []);
    const definition = { resources: [{ '@type': 'Resource', resourceId: 'r1' }] };
    await expect(service.create({ org: 'org', project: 'proj' }, 'retried', definition, carol)).resolves.toMatchObject({ id: expect.stringContaining('retried') });
    // Held once: the bound of one refuses the next.
    await expect(service.create({ org: 'org', project: 'proj' }, 'second', definition, carol)).rejects.toThrow(/already hold/);
  });
});

describe('a creation whose client leaves while it waits for the ledger\'s turn', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ auth: AUTH, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: 1 });
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server.close());

  const ref = { org: 'org', project: 'proj' };
  const definition = { resources: [{ '@type': 'Resource', resourceId: 'r1' }] };
  const holdIds = async () => (await server.platform.store.table('archive-holds').range()).map(({ key }) => (key as string[])[2]);

  /** Holds the ledger's turn, as a long write of another creation or a purge does, until the returned function is called. */
  function holdTurn(): () => Promise<void> {
    let giveBack!: () => void;
    const given = new Promise<void>((resolve) => (giveBack = resolve));
    const held = server.platform.store.writeInTurn('archive-ledger', () => given);
    return () => (giveBack(), held);
  }
  /** Long enough for a creation to have got through its checks to the ledger's queue. */
  const untilQueued = () => new Promise((resolve) => setTimeout(resolve, 300));

  test('gives up its place: it stores and counts nothing, and a creation behind it still runs', async () => {
    const giveBack = holdTurn();
    const leaving = new AbortController();
    const outcomes = Promise.allSettled([
      server.archives.create(ref, 'gone', definition, userIdentity('local', 'bob', []), leaving.signal),
      server.archives.create(ref, 'staying', definition, userIdentity('local', 'carol', []), new AbortController().signal),
    ]);
    await untilQueued();
    leaving.abort(new Error('client disconnected'));
    await giveBack();
    const [gone, staying] = await outcomes;
    expect(gone.status === 'rejected' && (gone.reason as Error).message).toBe('client disconnected');
    expect(staying.status === 'fulfilled' && staying.value.id).toContain('staying');
    expect(await exists(server, 'gone')).toBe(false);
    expect((await holdIds()).filter((id) => id!.includes('gone'))).toEqual([]);
    // Bob's one archive is still his to create.
    expect((await create(server, TOKENS.bob, 'bob-after')).statusCode).toBe(201);
  });

  test('over HTTP: a client that disconnects while its creation waits leaves nothing stored', async () => {
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = server.app.server.address() as AddressInfo;
    const giveBack = holdTurn();
    const closedOnServer = new Promise((resolve) => server.app.server.once('connection', (socket: Socket) => socket.once('close', resolve)));
    const body = JSON.stringify(definition);
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'PUT',
      path: '/v1/archives/org/proj/gone-over-http',
      headers: { ...bearer(TOKENS.alice), accept: 'application/json', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    request.on('error', () => undefined);
    request.end(body);
    await untilQueued();
    request.destroy();
    await closedOnServer;
    // The response's 'close' follows the socket's.
    await new Promise((resolve) => setImmediate(resolve));
    await giveBack();
    expect(await exists(server, 'gone-over-http')).toBe(false);
    expect((await holdIds()).filter((id) => id!.includes('gone-over-http'))).toEqual([]);
    // Alice's one archive is still hers to create.
    expect((await create(server, TOKENS.alice, 'alice-after')).statusCode).toBe(201);
  });
});
