/** Organizations and projects answer `?rev=N` with that revision's state, as Nexus does; a missing revision is 404 RevisionNotFound. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { OrgState } from '../../src/platform/orgs.js';
import { BASE, DEFAULT_AUTH, TOKENS, type TestServer, bearer, startServer } from './helpers.js';

const START = Date.UTC(2026, 0, 1);
let now = START;
let server: TestServer;
beforeAll(async () => {
  // alice may do everything, carol nothing: no anonymous read either.
  server = await startServer({ clock: () => now, auth: { tokens: DEFAULT_AUTH.tokens, acls: { '/': { 'local/alice': ['*'] } } } });
});
afterAll(() => server.close());

const alice = bearer(TOKENS.alice);
const carol = bearer(TOKENS.carol);
const at = (minutes: number) => new Date(START + minutes * 60_000).toISOString();

async function send(method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object, headers = alice) {
  return server.app.inject({ method, url, headers, ...(payload && { payload }) });
}

/** Runs `change` with the clock at START + `minutes`. */
async function atMinute(minutes: number, change: () => Promise<{ statusCode: number; body: string }>): Promise<void> {
  now = START + minutes * 60_000;
  const response = await change();
  expect(response.statusCode, response.body).toBeLessThan(300);
}

describe('an organization at a revision', () => {
  beforeAll(async () => {
    await atMinute(0, () => send('PUT', '/v1/orgs/history', { description: 'first' }));
    await atMinute(1, () => send('PUT', '/v1/orgs/history?rev=1', { description: 'second' }));
    await atMinute(2, () => send('DELETE', '/v1/orgs/history?rev=2'));
  });

  test('each revision answers its own state, the deprecation being one', async () => {
    const states = [];
    for (const rev of [1, 2, 3]) {
      const response = await send('GET', `/v1/orgs/history?rev=${rev}`);
      expect(response.statusCode).toBe(200);
      const { description, _rev, _deprecated, _createdAt, _updatedAt, _updatedBy, _self } = response.json();
      states.push({ description, _rev, _deprecated, _createdAt, _updatedAt, _updatedBy, _self });
    }
    const common = { _createdAt: at(0), _updatedBy: `${BASE}/v1/realms/local/users/alice`, _self: `${BASE}/v1/orgs/history` };
    expect(states).toEqual([
      { ...common, description: 'first', _rev: 1, _deprecated: false, _updatedAt: at(0) },
      { ...common, description: 'second', _rev: 2, _deprecated: false, _updatedAt: at(1) },
      { ...common, description: 'second', _rev: 3, _deprecated: true, _updatedAt: at(2) },
    ]);
    // The latest revision is the head, as read without ?rev.
    expect((await send('GET', '/v1/orgs/history?rev=3')).json()).toEqual((await send('GET', '/v1/orgs/history')).json());
  });

  test('an undeprecation is a revision too, and the earlier ones stay', async () => {
    await atMinute(3, () => send('PUT', '/v1/orgs/history/undeprecate?rev=3'));
    expect((await send('GET', '/v1/orgs/history?rev=4')).json()).toMatchObject({ _rev: 4, _deprecated: false, _updatedAt: at(3) });
    expect((await send('GET', '/v1/orgs/history?rev=3')).json()).toMatchObject({ _rev: 3, _deprecated: true });
  });

  test('a revision beyond the latest is 404 RevisionNotFound', async () => {
    const response = await send('GET', '/v1/orgs/history?rev=5');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ '@type': 'RevisionNotFound', reason: "Revision requested '5' not found, last known revision is '4'." });
  });

  test('a revision of an organization that does not exist is 404 OrganizationNotFound', async () => {
    const response = await send('GET', '/v1/orgs/no-such-org?rev=1');
    expect(response.statusCode).toBe(404);
    expect(response.json()['@type']).toBe('OrganizationNotFound');
  });

  test('rev=0, a negative or a non-integer rev is 400, as on writes', async () => {
    for (const rev of ['0', '-1', '1.5', 'one', '']) {
      const response = await send('GET', `/v1/orgs/history?rev=${rev}`);
      expect({ rev, status: response.statusCode }).toEqual({ rev, status: 400 });
    }
  });

  test('a caller who may not read the organization gets the refusal of the head, whether the revision exists or not', async () => {
    const head = await send('GET', '/v1/orgs/history', undefined, carol);
    expect(head.statusCode).toBe(403);
    for (const rev of [1, 99]) {
      const response = await send('GET', `/v1/orgs/history?rev=${rev}`, undefined, carol);
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 403, body: head.json() });
    }
  });
});

describe('a project at a revision', () => {
  beforeAll(async () => {
    await atMinute(10, () => send('PUT', '/v1/orgs/lab', {}));
    await atMinute(11, () => send('PUT', '/v1/projects/lab/p', { description: 'one', base: 'https://one.example.org/' }));
    await atMinute(12, () =>
      send('PUT', '/v1/projects/lab/p?rev=1', { description: 'two', base: 'https://two.example.org/', apiMappings: [{ prefix: 'cell', namespace: 'https://cells.example.org/' }] }),
    );
    await atMinute(13, () => send('DELETE', '/v1/projects/lab/p?rev=2'));
  });

  test('each revision answers its own description, base, mappings and deprecation', async () => {
    const states = [];
    for (const rev of [1, 2, 3]) {
      const response = await send('GET', `/v1/projects/lab/p?rev=${rev}`);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      states.push({
        rev: body._rev,
        description: body.description,
        base: body.base,
        mappings: body.apiMappings,
        cell: body._effectiveApiMappings.find((m: { prefix: string }) => m.prefix === 'cell'),
        deprecated: body._deprecated,
        updatedAt: body._updatedAt,
      });
    }
    const cell = { prefix: 'cell', namespace: 'https://cells.example.org/' };
    expect(states).toEqual([
      { rev: 1, description: 'one', base: 'https://one.example.org/', mappings: [], cell: undefined, deprecated: false, updatedAt: at(11) },
      { rev: 2, description: 'two', base: 'https://two.example.org/', mappings: [cell], cell, deprecated: false, updatedAt: at(12) },
      { rev: 3, description: 'two', base: 'https://two.example.org/', mappings: [cell], cell, deprecated: true, updatedAt: at(13) },
    ]);
    expect((await send('GET', '/v1/projects/lab/p?rev=1')).json().vocab).toBe(`${BASE}/v1/vocabs/lab/p/`);
  });

  test('marking for deletion is a revision; the earlier ones still answer, as the head does', async () => {
    await atMinute(14, () => send('DELETE', '/v1/projects/lab/p?rev=3&prune=true'));
    expect((await send('GET', '/v1/projects/lab/p?rev=4')).json()).toMatchObject({ _rev: 4, _markedForDeletion: true });
    expect((await send('GET', '/v1/projects/lab/p?rev=3')).json()).toMatchObject({ _rev: 3, _markedForDeletion: false, _deprecated: true });
  });

  test('a revision beyond the latest is 404 RevisionNotFound; rev=0 is 400', async () => {
    const beyond = await send('GET', '/v1/projects/lab/p?rev=5');
    expect(beyond.statusCode).toBe(404);
    expect(beyond.json()).toMatchObject({ '@type': 'RevisionNotFound', reason: "Revision requested '5' not found, last known revision is '4'." });
    expect((await send('GET', '/v1/projects/lab/p?rev=0')).statusCode).toBe(400);
    expect((await send('GET', '/v1/projects/lab/no-such-project?rev=1')).json()['@type']).toBe('ProjectNotFound');
  });

  test('the literature project has its one revision', async () => {
    expect((await send('GET', '/v1/projects/literature/articles?rev=1')).json()._rev).toBe(1);
    expect((await send('GET', '/v1/projects/literature/articles?rev=2')).json()['@type']).toBe('RevisionNotFound');
  });

  test('a caller who may not read the project gets the refusal of the head, whether the revision exists or not', async () => {
    const head = await send('GET', '/v1/projects/lab/p', undefined, carol);
    expect(head.statusCode).toBe(403);
    for (const rev of [1, 99]) {
      const response = await send('GET', `/v1/projects/lab/p?rev=${rev}`, undefined, carol);
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 403, body: head.json() });
    }
  });
});

describe('an organization stored before past revisions were kept', () => {
  test('its stored head answers its own revision; earlier ones are 404 saying they were never kept; later changes keep theirs', async () => {
    const { store } = server.platform;
    const orgs = store.table<OrgState>('orgs');
    const head = await server.platform.orgs.fetch('lab');
    // What a server before this change left: a head at revision 3, no past states.
    await store.write(() => orgs.put('legacy', { ...head, label: 'legacy', description: 'old', rev: 3 }));
    expect((await send('GET', '/v1/orgs/legacy?rev=3')).json()).toMatchObject({ _rev: 3, description: 'old' });
    const never = await send('GET', '/v1/orgs/legacy?rev=1');
    expect(never.statusCode).toBe(404);
    expect(never.json()).toMatchObject({
      '@type': 'RevisionNotFound',
      reason: "Revision requested '1' not found: it predates the keeping of past revisions, the earliest kept is '3'.",
    });
    await atMinute(20, () => send('PUT', '/v1/orgs/legacy?rev=3', { description: 'new' }));
    expect((await send('GET', '/v1/orgs/legacy?rev=3')).json()).toMatchObject({ _rev: 3, description: 'old' });
    expect((await send('GET', '/v1/orgs/legacy?rev=4')).json()).toMatchObject({ _rev: 4, description: 'new' });
    expect((await send('GET', '/v1/orgs/legacy?rev=2')).json().reason).toMatch(/predates the keeping of past revisions, the earliest kept is '3'/);
  });
});

describe('past revisions after a restart', () => {
  test('are read from the store', async () => {
    await server.stop();
    server = await startServer({ dataDir: server.dataDir, clock: () => now, auth: { tokens: DEFAULT_AUTH.tokens, acls: { '/': { 'local/alice': ['*'] } } } });
    expect((await send('GET', '/v1/orgs/history?rev=1')).json()).toMatchObject({ _rev: 1, description: 'first', _deprecated: false });
    expect((await send('GET', '/v1/projects/lab/p?rev=1')).json()).toMatchObject({ _rev: 1, base: 'https://one.example.org/' });
  });
});
