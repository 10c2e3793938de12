/**
 * Anonymous callers are all one principal, so the live archives one caller may hold are counted by client
 * address for them (an IPv6 address by its /64): one client cannot use up the bound of every other. Users
 * are counted by principal, whatever their address. Archives a store kept from before, counted against
 * `anonymous`, still count towards the stored bytes and are purged and replaced as before.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { StoredArchive } from '../../src/archive/archives.js';
import type { ArchiveHold } from '../../src/archive/quota.js';
import { DEFAULT_AUTH, TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';

const TTL = 3_600_000;
const LIMIT = 2;
let now = Date.parse('2026-01-01T00:00:00Z');

/** The literature project, which anonymous callers may read without an auth file. */
const LITERATURE = 'literature/articles';

function create(server: TestServer, id: string, remoteAddress: string, headers: Record<string, string> = {}, project = LITERATURE) {
  const resources = [{ '@type': 'Resource', resourceId: 'demo-000', path: `/copies/${id}.json` }];
  return server.app.inject({ method: 'PUT', url: `/v1/archives/${project}/${id}`, headers: { ...headers, accept: 'application/json' }, payload: { resources }, remoteAddress });
}

const exists = async (server: TestServer, id: string) =>
  (await server.app.inject({ method: 'GET', url: `/v1/archives/${LITERATURE}/${id}`, headers: { accept: 'application/json' } })).statusCode === 200;

/** An archive id's last segment: the one the tests name it by. */
const segmentOf = (id: string) => id.slice(id.lastIndexOf('/') + 1);

/** The ledger's holds, as [caller, the archive's last segment]. */
async function holds(server: TestServer): Promise<string[][]> {
  const entries = await server.platform.store.table<ArchiveHold>('archive-holds').range();
  return entries.map(({ key }) => {
    const [caller, , id] = key as string[];
    return [caller!, segmentOf(id!)];
  });
}

describe('anonymous callers without an auth file', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ auth: null, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: LIMIT });
  });
  afterAll(() => server.close());

  test('each client address reaches its own limit; the same address is refused at it with 429, and nothing is stored', async () => {
    for (const [client, address] of [
      ['a', '192.0.2.1'],
      ['b', '198.51.100.7'],
    ] as const) {
      for (let i = 0; i < LIMIT; i++) expect((await create(server, `${client}-${i}`, address)).statusCode).toBe(201);
      const refused = await create(server, `${client}-over`, address);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()['@type']).toBe('ArchiveQuotaExceeded');
      expect(await exists(server, `${client}-over`)).toBe(false);
    }
  });

  test('IPv6 addresses of one /64 are one client, as for the other per-client bounds', async () => {
    expect((await create(server, 'v6-0', '2001:db8:1:2::1')).statusCode).toBe(201);
    expect((await create(server, 'v6-1', '2001:db8:1:2:aaaa::9')).statusCode).toBe(201);
    expect((await create(server, 'v6-over', '2001:db8:1:2::77')).statusCode).toBe(429);
    expect((await create(server, 'v6-other-64', '2001:db8:1:3::1')).statusCode).toBe(201);
  });

  test('a ledger filled again from the stored archives (on a start) counts each under its client again', async () => {
    const { store } = server.platform;
    // Without its total the ledger is filled again from the archives, as when it does not count them all.
    await store.write(() => store.table('archive-totals').remove('stored-bytes'));
    const dataDir = server.dataDir;
    await server.stop();
    server = await startServer({ auth: null, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: LIMIT, dataDir });
    expect(new Set((await holds(server)).map(([caller]) => caller))).toEqual(
      new Set(['anonymous@192.0.2.1', 'anonymous@198.51.100.7', 'anonymous@2001:db8:1:2::/64', 'anonymous@2001:db8:1:3::/64']),
    );
    expect((await create(server, 'a-after-refill', '192.0.2.1')).statusCode).toBe(429);
    expect((await create(server, 'c-after-refill', '192.0.2.3')).statusCode).toBe(201);
  });
});

describe('users', () => {
  let server: TestServer;
  beforeAll(async () => {
    const auth = { ...DEFAULT_AUTH, acls: { '/': { anonymous: ['resources/read'], 'local/alice': ['*'] } } };
    server = await startServer({ auth, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: LIMIT });
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server.close());

  test('a user is counted as one caller whatever its address', async () => {
    const asAlice = (id: string, address: string) => create(server, id, address, bearer(TOKENS.alice), 'org/proj');
    expect((await asAlice('alice-0', '192.0.2.1')).statusCode).toBe(201);
    expect((await asAlice('alice-1', '198.51.100.7')).statusCode).toBe(201);
    expect((await asAlice('alice-over', '203.0.113.9')).statusCode).toBe(429);
  });
});

describe('a store kept from a version that counted every anonymous archive against `anonymous`', () => {
  let server: TestServer;

  /** Rewrites archives this version stored for `address` as that version stored them: no holder, held by `anonymous`. */
  async function asStoredBefore(address: string, ...segments: string[]): Promise<void> {
    const { store } = server.platform;
    const archives = store.table<StoredArchive>('archives');
    await store.write(async () => {
      for (const { key, value } of await archives.range([LITERATURE])) {
        if (!segments.includes(segmentOf(value.id))) continue;
        const { heldBy, ...before } = value;
        expect(heldBy).toBe(`anonymous@${address}`);
        await archives.put(key, before);
        await rekeyHold(heldBy!, 'anonymous', value.id);
      }
    });
  }

  /** Inside a write: moves an archive's hold from one caller key to another. */
  async function rekeyHold(from: string, to: string, id: string): Promise<void> {
    const holds = server.platform.store.table<ArchiveHold>('archive-holds');
    const hold = await holds.get([from, LITERATURE, id]);
    expect(hold).toBeDefined();
    await holds.remove([from, LITERATURE, id]);
    await holds.put([to, LITERATURE, id], hold!);
  }

  beforeAll(async () => {
    server = await startServer({ auth: null, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: LIMIT });
  });
  afterAll(() => server.close());

  test('its archives stay readable and counted after a restart, bind no client address, and are purged once expired', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await create(server, `old-${i}`, '203.0.113.5')).statusCode).toBe(201);
    await asStoredBefore('203.0.113.5', 'old-0', 'old-1');
    const dataDir = server.dataDir;
    await server.stop();
    server = await startServer({ auth: null, clock: () => now, ttlMs: TTL, maxArchivesPerCaller: LIMIT, dataDir });
    expect(await exists(server, 'old-0')).toBe(true);
    // The ledger was not filled again: it still counts the old archives, under `anonymous`.
    expect(await holds(server)).toEqual([
      ['anonymous', 'old-0'],
      ['anonymous', 'old-1'],
    ]);
    // They cannot be told apart by client: no anonymous client finds them counted against it.
    for (let i = 0; i < LIMIT; i++) expect((await create(server, `new-${i}`, '203.0.113.5')).statusCode).toBe(201);
    now += TTL;
    expect(await server.archives.purgeExpired()).toBe(2 * LIMIT);
    expect(await exists(server, 'old-0')).toBe(false);
    expect(await holds(server)).toEqual([]);
    expect(await server.platform.store.table('archives').count()).toBe(0);
  });

  test('an expired archive is replaced under its client, whichever key the ledger counted it under', async () => {
    expect((await create(server, 'old', '192.0.2.1')).statusCode).toBe(201);
    expect((await create(server, 'refilled', '192.0.2.1')).statusCode).toBe(201);
    // `old` as that version stored it; `refilled` as this one did, counted under `anonymous` by that version filling the ledger again.
    await asStoredBefore('192.0.2.1', 'old');
    const refilled = (await server.platform.store.table<StoredArchive>('archives').range([LITERATURE])).find(({ value }) => segmentOf(value.id) === 'refilled')!;
    await server.platform.store.write(() => rekeyHold('anonymous@192.0.2.1', 'anonymous', refilled.value.id));
    now += TTL;
    expect((await create(server, 'old', '192.0.2.1')).statusCode).toBe(201);
    expect((await create(server, 'refilled', '192.0.2.1')).statusCode).toBe(201);
    expect(await holds(server)).toEqual([
      ['anonymous@192.0.2.1', 'old'],
      ['anonymous@192.0.2.1', 'refilled'],
    ]);
    // No hold is left behind whose purge would erase the live archives that replaced them.
    expect(await server.archives.purgeExpired()).toBe(0);
    expect(await exists(server, 'old')).toBe(true);
    expect(await exists(server, 'refilled')).toBe(true);
  });
});
