/**
 * Archive quota refusals say when a retry can succeed: `Retry-After` is the time until the first of the
 * caller's live archives expires (429), or the first live archive of any caller (503); a definition that
 * would not fit even in an empty store gets no `Retry-After`, since waiting cannot help.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_AUTH, TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';

const AUTH = { ...DEFAULT_AUTH, acls: { '/': { 'local/alice': ['*'], 'local/bob': ['resources/read'], 'local/carol': ['resources/read'] } } };
const TTL_SECONDS = 3_600;
let now = Date.parse('2026-01-01T00:00:00Z');

function create(server: TestServer, token: string, id: string, entries = 1) {
  const resources = Array.from({ length: entries }, (_, i) => ({ '@type': 'Resource', resourceId: 'r1', path: `/copies/${id}/${i}.json` }));
  return server.app.inject({ method: 'PUT', url: `/v1/archives/org/proj/${id}`, headers: { ...bearer(token), accept: 'application/json' }, payload: { resources } });
}

describe('429 ArchiveQuotaExceeded', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ auth: AUTH, clock: () => now, ttlMs: TTL_SECONDS * 1000, maxArchivesPerCaller: 2 });
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server.close());

  test("Retry-After: the seconds until the first of the caller's archives expires", async () => {
    // carol's archive, older than bob's, is not bob's to wait for.
    expect((await create(server, TOKENS.carol, 'carol-0')).statusCode).toBe(201);
    now += 100_000;
    expect((await create(server, TOKENS.bob, 'bob-0')).statusCode).toBe(201);
    now += 10_000;
    expect((await create(server, TOKENS.bob, 'bob-1')).statusCode).toBe(201);
    now += 20_500;
    const refused = await create(server, TOKENS.bob, 'bob-2');
    expect(refused.statusCode).toBe(429);
    const wait = TTL_SECONDS - 30; // rounded up from 3569.5
    expect(refused.headers['retry-after']).toBe(String(wait));
    expect(refused.json().reason).toContain(`the first expires in ${wait} s.`);
    now += wait * 1000;
    expect((await create(server, TOKENS.bob, 'bob-2')).statusCode).toBe(201);
  });
});

describe('503 ArchiveStorageFull', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ auth: AUTH, clock: () => now, ttlMs: TTL_SECONDS * 1000, maxArchiveStoreBytes: 40_000 });
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server.close());

  test('Retry-After: the seconds until the first live archive of any caller expires; the reason says the new one would not fit', async () => {
    expect((await create(server, TOKENS.bob, 'bob-big', 100)).statusCode).toBe(201);
    now += 60_000;
    expect((await create(server, TOKENS.carol, 'carol-big', 100)).statusCode).toBe(201);
    now += 1_000;
    // Each definition takes about 16,000 bytes: two fit within 40,000, three do not.
    const refused = await create(server, TOKENS.alice, 'alice-big', 100);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe(String(TTL_SECONDS - 61));
    expect(refused.json()['@type']).toBe('ArchiveStorageFull');
    expect(refused.json().reason).toMatch(
      new RegExp(
        '^The new archive definition \\(\\d+ bytes\\) would not fit within the total bound of stored archive definitions, ' +
          '40000 bytes \\(--max-archive-store-bytes\\): live archives hold \\d+ bytes; ' +
          `retry once archives have expired \\(the first expires in ${TTL_SECONDS - 61} s\\)\\.$`,
      ),
    );
    now += (TTL_SECONDS - 61) * 1000;
    expect((await create(server, TOKENS.alice, 'alice-big', 100)).statusCode).toBe(201);
  });

  test('a definition larger than the whole bound: no Retry-After, and the reason says so', async () => {
    const refused = await create(server, TOKENS.alice, 'too-big', 1_000);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBeUndefined();
    expect(refused.json().reason).toMatch(/would not fit within .* even with no other archive stored: split it into several archives\.$/);
  });
});
