/**
 * The permission a /v1 write needs comes before its preconditions (RFC 9110 §13.2.1: a request refused
 * without its conditional fields is refused with them too), and the target the preconditions look at is
 * read with that permission, not with the read's:
 * - a caller who may read the target but not write it gets the write's 403, even with a false
 *   precondition, and nothing changes;
 * - a caller who may write the target but not read it has its preconditions evaluated: a true one lets
 *   the write through, a false one is 412.
 * Archives are created with `resources/read`, so for them the first case is a caller without it.
 */
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH, TOKENS, bearer, createProject, multipart, startServer, type TestServer } from './helpers.js';

const DAVE = 'dave-secret-token';
/** alice may do everything; carol may read everything and write nothing; bob and dave may write without reading. */
const AUTH = {
  tokens: { ...DEFAULT_AUTH.tokens, [DAVE]: { realm: 'local', subject: 'dave' } },
  acls: {
    '/': { 'local/alice': ['*'], 'local/carol': ['resources/read'], 'local/dave': ['organizations/create'] },
    '/org': { 'local/bob': ['organizations/write', 'projects/create', 'projects/write', 'resources/write', 'files/write'] },
  },
};
const alice = bearer(TOKENS.alice);
const bob = bearer(TOKENS.bob);
const carol = bearer(TOKENS.carol);
const dave = bearer(DAVE);

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ auth: AUTH });
  await createProject(server.app, 'org', 'proj');
  await createProject(server.app, 'org', 'spare');
});
afterAll(() => server?.close());

function send(caller: { authorization: string }, request: InjectOptions) {
  return server.app.inject({ ...request, headers: { ...caller, ...request.headers } });
}

async function upload(caller: { authorization: string }, method: 'PUT' | 'POST', url: string, headers: Record<string, string>) {
  const body = await multipart('notes.txt', 'content', 'text/plain');
  return send(caller, { method, url, headers: { ...body.headers, ...headers }, payload: body.payload });
}

/** The entity as alice reads it: what the refused writes must have left alone. */
async function stateOf(url: string): Promise<Record<string, unknown>> {
  const response = await send(alice, { method: 'GET', url, headers: { accept: 'application/ld+json' } });
  expect(response.statusCode).toBe(200);
  return response.json();
}

async function totalOf(url: string): Promise<number> {
  return (await send(alice, { method: 'GET', url })).json()._total as number;
}

/** The write's own 403: it names the permission the write needs, not the read's. */
function expectForbidden(response: { statusCode: number; json(): Record<string, unknown> }, permission: string) {
  expect(response.statusCode).toBe(403);
  expect(response.json()).toMatchObject({ '@type': 'AuthorizationFailed', details: expect.stringContaining(`'${permission}'`) });
}

function expectPreconditionFailed(response: { statusCode: number; json(): Record<string, unknown> }) {
  expect(response.statusCode).toBe(412);
  expect(response.json()['@type']).toBe('PreconditionFailed');
}

describe('organizations', () => {
  it('refuses a reader who may not write with 403, whatever the precondition, and changes nothing', async () => {
    expectForbidden(await send(carol, { method: 'PUT', url: '/v1/orgs/org?rev=1', headers: { 'if-match': '"x"' }, payload: { description: 'carol' } }), 'organizations/write');
    expectForbidden(await send(carol, { method: 'DELETE', url: '/v1/orgs/org?rev=1', headers: { 'if-none-match': '*' } }), 'organizations/write');
    // Creating needs organizations/create, which carol lacks as well.
    expectForbidden(await send(carol, { method: 'PUT', url: '/v1/orgs/carols', headers: { 'if-match': '*' }, payload: {} }), 'organizations/create');
    expect(await stateOf('/v1/orgs/org')).toMatchObject({ _rev: 1, _deprecated: false });
    expect((await send(alice, { method: 'GET', url: '/v1/orgs/carols' })).statusCode).toBe(404);
  });

  it("evaluates a writer's preconditions though the writer may not read the organization", async () => {
    expectPreconditionFailed(await send(bob, { method: 'PUT', url: '/v1/orgs/org?rev=1', headers: { 'if-match': '"x"' }, payload: { description: 'bob' } }));
    expect(await stateOf('/v1/orgs/org')).toMatchObject({ _rev: 1 });
    const updated = await send(bob, { method: 'PUT', url: '/v1/orgs/org?rev=1', headers: { 'if-match': '*' }, payload: { description: 'bob' } });
    expect(updated.statusCode).toBe(200);
    expect(await stateOf('/v1/orgs/org')).toMatchObject({ _rev: 2, description: 'bob' });
  });

  it("evaluates a creator's preconditions though the creator may not read there", async () => {
    expectPreconditionFailed(await send(dave, { method: 'PUT', url: '/v1/orgs/org', headers: { 'if-none-match': '*' }, payload: {} }));
    expect((await send(dave, { method: 'PUT', url: '/v1/orgs/daves', headers: { 'if-none-match': '*' }, payload: {} })).statusCode).toBe(201);
  });
});

describe('projects', () => {
  const url = '/v1/projects/org/spare';

  it('refuses a reader who may not write with 403, whatever the precondition, and changes nothing', async () => {
    expectForbidden(await send(carol, { method: 'PUT', url: `${url}?rev=1`, headers: { 'if-match': '"x"' }, payload: { description: 'carol' } }), 'projects/write');
    expectForbidden(await send(carol, { method: 'DELETE', url: `${url}?rev=1`, headers: { 'if-none-match': '*' } }), 'projects/write');
    expectForbidden(await send(carol, { method: 'PUT', url: '/v1/projects/org/carols', headers: { 'if-match': '*' }, payload: {} }), 'projects/create');
    expect(await stateOf(url)).toMatchObject({ _rev: 1, _deprecated: false });
    expect((await send(alice, { method: 'GET', url: '/v1/projects/org/carols' })).statusCode).toBe(404);
  });

  it("evaluates a writer's preconditions though the writer may not read the project", async () => {
    expectPreconditionFailed(await send(bob, { method: 'PUT', url: `${url}?rev=1`, headers: { 'if-match': '"x"' }, payload: { description: 'bob' } }));
    expect(await stateOf(url)).toMatchObject({ _rev: 1 });
    expect((await send(bob, { method: 'PUT', url: `${url}?rev=1`, headers: { 'if-match': '*' }, payload: { description: 'bob' } })).statusCode).toBe(200);
    expect(await stateOf(url)).toMatchObject({ _rev: 2, description: 'bob' });
    expectPreconditionFailed(await send(bob, { method: 'PUT', url: '/v1/projects/org/proj', headers: { 'if-none-match': '*' }, payload: {} }));
    expect((await send(bob, { method: 'PUT', url: '/v1/projects/org/bobs', headers: { 'if-none-match': '*' }, payload: {} })).statusCode).toBe(201);
  });
});

describe('resources', () => {
  const url = '/v1/resources/org/proj/_/thing';

  beforeAll(async () => {
    expect((await send(alice, { method: 'PUT', url, payload: { name: 'first' } })).statusCode).toBe(201);
  });

  it('refuses a reader who may not write with 403, whatever the precondition, and changes nothing', async () => {
    expectForbidden(await send(carol, { method: 'PUT', url: `${url}?rev=1`, headers: { 'if-match': '"x"' }, payload: { name: 'carol' } }), 'resources/write');
    expectForbidden(await send(carol, { method: 'POST', url: `${url}/tags?rev=1`, headers: { 'if-match': '"x"' }, payload: { tag: 'v1', rev: 1 } }), 'resources/write');
    expectForbidden(await send(carol, { method: 'DELETE', url: `${url}?rev=1`, headers: { 'if-none-match': '*' } }), 'resources/write');
    const before = await totalOf('/v1/resources/org/proj');
    expectForbidden(await send(carol, { method: 'POST', url: '/v1/resources/org/proj', headers: { 'if-match': '"x"' }, payload: {} }), 'resources/write');
    expect(await stateOf(url)).toMatchObject({ _rev: 1, _deprecated: false, name: 'first' });
    expect(await totalOf('/v1/resources/org/proj')).toBe(before);
  });

  it("evaluates a writer's preconditions though the writer may not read the resource", async () => {
    expectPreconditionFailed(await send(bob, { method: 'PUT', url: `${url}?rev=1`, headers: { 'if-match': '"x"' }, payload: { name: 'bob' } }));
    expectPreconditionFailed(await send(bob, { method: 'PUT', url, headers: { 'if-none-match': '*' }, payload: { name: 'bob' } }));
    expect(await stateOf(url)).toMatchObject({ _rev: 1, name: 'first' });
    expect((await send(bob, { method: 'PUT', url: `${url}?rev=1`, headers: { 'if-match': '*' }, payload: { name: 'bob' } })).statusCode).toBe(200);
    expect((await send(bob, { method: 'DELETE', url: `${url}?rev=2`, headers: { 'if-none-match': '"x"' } })).statusCode).toBe(200);
    expect(await stateOf(url)).toMatchObject({ _rev: 3, _deprecated: true, name: 'bob' });
    expect((await send(bob, { method: 'POST', url: '/v1/resources/org/proj', headers: { 'if-match': '*' }, payload: {} })).statusCode).toBe(201);
  });
});

describe('files', () => {
  const url = '/v1/files/org/proj/notes';
  let etag: string;

  beforeAll(async () => {
    expect((await upload(alice, 'PUT', url, {})).statusCode).toBe(201);
    etag = (await send(alice, { method: 'GET', url })).headers.etag as string;
  });

  it('refuses a reader who may not write with 403, whatever the precondition, and changes nothing', async () => {
    expectForbidden(await upload(carol, 'PUT', `${url}?rev=1`, { 'if-match': '"x"' }), 'files/write');
    expectForbidden(await send(carol, { method: 'DELETE', url: `${url}?rev=1`, headers: { 'if-none-match': etag } }), 'files/write');
    const before = await totalOf('/v1/files/org/proj');
    expectForbidden(await upload(carol, 'POST', '/v1/files/org/proj', { 'if-match': '"x"' }), 'files/write');
    expect(await stateOf(url)).toMatchObject({ _rev: 1, _deprecated: false });
    expect(await totalOf('/v1/files/org/proj')).toBe(before);
  });

  it("evaluates a writer's preconditions though the writer may not read the file", async () => {
    expectPreconditionFailed(await upload(bob, 'PUT', `${url}?rev=1`, { 'if-match': '"x"' }));
    expectPreconditionFailed(await send(bob, { method: 'DELETE', url: `${url}?rev=1`, headers: { 'if-none-match': etag } }));
    expect(await stateOf(url)).toMatchObject({ _rev: 1, _deprecated: false });
    expect((await upload(bob, 'PUT', `${url}?rev=1`, { 'if-match': etag })).statusCode).toBe(200);
    expect(await stateOf(url)).toMatchObject({ _rev: 2 });
    expect((await upload(bob, 'POST', '/v1/files/org/proj', { 'if-match': '*' })).statusCode).toBe(201);
  });
});

describe('archives', () => {
  const definition = { resources: [{ '@type': 'Resource', resourceId: 'thing' }] };
  const json = { accept: 'application/json' };

  it('refuses a caller who may not create archives with 403, whatever the precondition, and stores none', async () => {
    expectForbidden(await send(bob, { method: 'POST', url: '/v1/archives/org/proj', headers: { ...json, 'if-match': '"x"' }, payload: definition }), 'resources/read');
    expectForbidden(await send(bob, { method: 'PUT', url: '/v1/archives/org/proj/bobs', headers: { ...json, 'if-match': '*' }, payload: definition }), 'resources/read');
    expect((await send(alice, { method: 'GET', url: '/v1/archives/org/proj/bobs', headers: json })).statusCode).toBe(404);
  });

  it("evaluates a creator's preconditions", async () => {
    expectPreconditionFailed(await send(carol, { method: 'POST', url: '/v1/archives/org/proj', headers: { ...json, 'if-match': '"x"' }, payload: definition }));
    const created = await send(carol, { method: 'PUT', url: '/v1/archives/org/proj/carols', headers: { ...json, 'if-none-match': '*' }, payload: definition });
    expect(created.statusCode).toBe(201);
    expectPreconditionFailed(await send(carol, { method: 'PUT', url: '/v1/archives/org/proj/carols', headers: { ...json, 'if-none-match': '*' }, payload: definition }));
  });
});

describe('the collection a POST creates in', () => {
  it('exists only when its project does: a POST into a missing project is 404 whatever the precondition', async () => {
    const headers = { 'if-match': '"x"', accept: 'application/json' };
    const missing = [
      await send(alice, { method: 'POST', url: '/v1/resources/org/missing', headers, payload: {} }),
      await upload(alice, 'POST', '/v1/files/org/missing', headers),
      await send(alice, { method: 'POST', url: '/v1/archives/org/missing', headers, payload: { resources: [] } }),
    ];
    expect(missing.map((response) => [response.statusCode, response.json()['@type']])).toEqual(Array(3).fill([404, 'ProjectNotFound']));
  });
});

describe('a project that takes no writes', () => {
  it("refuses a resource or file write with the write's 400 whatever the precondition", async () => {
    await createProject(server.app, 'org', 'closed');
    expect((await send(alice, { method: 'PUT', url: '/v1/resources/org/closed/_/kept', payload: { name: 'kept' } })).statusCode).toBe(201);
    expect((await upload(alice, 'PUT', '/v1/files/org/closed/kept-file', {})).statusCode).toBe(201);
    expect((await send(alice, { method: 'DELETE', url: '/v1/projects/org/closed?rev=1' })).statusCode).toBe(200);
    const refused = [
      await send(bob, { method: 'PUT', url: '/v1/resources/org/closed/_/kept?rev=1', headers: { 'if-match': '"x"' }, payload: { name: 'bob' } }),
      await send(bob, { method: 'POST', url: '/v1/resources/org/closed', headers: { 'if-match': '"x"' }, payload: {} }),
      await upload(bob, 'PUT', '/v1/files/org/closed/kept-file?rev=1', { 'if-match': '"x"' }),
      await upload(bob, 'POST', '/v1/files/org/closed', { 'if-match': '"x"' }),
    ];
    expect(refused.map((response) => [response.statusCode, response.json()['@type']])).toEqual(Array(4).fill([400, 'ProjectIsDeprecated']));
  });
});
