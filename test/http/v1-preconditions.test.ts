/**
 * The /v1 writes evaluate If-Match, If-Unmodified-Since and If-None-Match before they are performed
 * (RFC 9110 §13.1, §13.2.2): a false precondition is answered 412 in the /v1 vocabulary and changes
 * nothing. A file's content has a strong entity tag; no other entity carries one, so only `*` matches it.
 */
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, bearer, createProject, multipart, startServer, type TestServer } from '../platform/helpers.js';

const alice = bearer(TOKENS.alice);
const T0 = Date.parse('2026-03-01T12:00:00Z');
/** The platform's clock: set by the tests that compare with If-Unmodified-Since. */
let now = T0;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ clock: () => now });
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server?.close());

function send(request: InjectOptions) {
  return server.app.inject({ ...request, headers: { ...alice, ...request.headers } });
}

async function upload(url: string, content: string, headers: Record<string, string> = {}) {
  const body = await multipart('notes.txt', content, 'text/plain');
  return send({ method: 'PUT', url, headers: { ...body.headers, ...headers }, payload: body.payload });
}

/** The 412 every false precondition answers: the platform's error shape, pointing to `rev`. */
function expectPreconditionFailed(response: { statusCode: number; json(): Record<string, unknown> }, field: string) {
  expect(response.statusCode).toBe(412);
  const body = response.json();
  expect(body['@type']).toBe('PreconditionFailed');
  expect(body.reason).toContain(`The precondition ${field} is false`);
  expect(body.reason).toContain('?rev=');
}

async function revOf(url: string): Promise<number> {
  const response = await send({ method: 'GET', url, headers: { accept: 'application/ld+json' } });
  expect(response.statusCode).toBe(200);
  return response.json()._rev as number;
}

describe('file content: a strong entity tag', () => {
  const url = '/v1/files/org/proj/notes';
  let etag: string;

  beforeAll(async () => {
    expect((await upload(url, 'first')).statusCode).toBe(201);
    etag = (await send({ method: 'GET', url })).headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
  });

  it('refuses an update whose If-Match names another tag, or the current one weakly, and keeps the content', async () => {
    for (const ifMatch of ['"not-the-digest"', `W/${etag}`, '"a", "b"']) {
      expectPreconditionFailed(await upload(`${url}?rev=1`, 'second', { 'if-match': ifMatch }), 'If-Match');
    }
    const content = await send({ method: 'GET', url });
    expect([content.body, content.headers.etag]).toEqual(['first', etag]);
    expect(await revOf(url)).toBe(1);
  });

  it('performs an update whose If-Match names the current tag, among others', async () => {
    const updated = await upload(`${url}?rev=1`, 'second', { 'if-match': `"other", ${etag}` });
    expect(updated.statusCode).toBe(200);
    expect((await send({ method: 'GET', url })).body).toBe('second');
    etag = (await send({ method: 'GET', url })).headers.etag as string;
  });

  it('refuses a creation with If-None-Match: * when the file exists, and creates one that does not', async () => {
    expectPreconditionFailed(await upload(url, 'third', { 'if-none-match': '*' }), 'If-None-Match: *');
    expect((await send({ method: 'GET', url })).body).toBe('second');
    expect((await upload('/v1/files/org/proj/fresh', 'new', { 'if-none-match': '*' })).statusCode).toBe(201);
  });

  it('refuses a deprecation whose If-None-Match names the current tag, weakly compared', async () => {
    const rev = await revOf(url);
    expectPreconditionFailed(await send({ method: 'DELETE', url: `${url}?rev=${rev}`, headers: { 'if-none-match': `W/${etag}` } }), 'If-None-Match');
    const state = await send({ method: 'GET', url, headers: { accept: 'application/ld+json' } });
    expect([state.json()._deprecated, state.json()._rev]).toEqual([false, rev]);
  });

  it('refuses a tag whose If-Match names another tag', async () => {
    const rev = await revOf(url);
    const tagged = await send({ method: 'POST', url: `${url}/tags?rev=${rev}`, headers: { 'if-match': '"stale"' }, payload: { tag: 'v1', rev: 1 } });
    expectPreconditionFailed(tagged, 'If-Match');
    expect((await send({ method: 'GET', url: `${url}/tags` })).json().tags).toEqual([]);
  });
});

describe('entities without an entity tag', () => {
  const url = '/v1/resources/org/proj/_/thing';

  beforeAll(async () => {
    expect((await send({ method: 'PUT', url, payload: { name: 'first' } })).statusCode).toBe(201);
  });

  it('refuses an update whose If-Match lists tags: none can match', async () => {
    expectPreconditionFailed(await send({ method: 'PUT', url: `${url}?rev=1`, headers: { 'if-match': '"1"' }, payload: { name: 'second' } }), 'If-Match');
    const state = await send({ method: 'GET', url });
    expect([state.json().name, state.json()._rev]).toEqual(['first', 1]);
  });

  it('performs an update with If-Match: * on a resource that exists', async () => {
    const updated = await send({ method: 'PUT', url: `${url}?rev=1`, headers: { 'if-match': '*' }, payload: { name: 'second' } });
    expect(updated.statusCode).toBe(200);
  });

  it('refuses a creation with If-Match: * (nothing exists yet) and creates nothing', async () => {
    const missing = '/v1/resources/org/proj/_/missing';
    expectPreconditionFailed(await send({ method: 'PUT', url: missing, headers: { 'if-match': '*' }, payload: { name: 'x' } }), 'If-Match: *');
    expect((await send({ method: 'GET', url: missing })).statusCode).toBe(404);
  });

  it('refuses a creation with If-None-Match: * over an existing resource, and performs one that is new', async () => {
    expectPreconditionFailed(await send({ method: 'PUT', url, headers: { 'if-none-match': '*' }, payload: { name: 'again' } }), 'If-None-Match: *');
    expect((await send({ method: 'PUT', url: '/v1/resources/org/proj/_/new-one', headers: { 'if-none-match': '*' }, payload: {} })).statusCode).toBe(201);
  });

  it('takes an If-None-Match that lists tags: none names the resource', async () => {
    const rev = await revOf(url);
    const deprecated = await send({ method: 'DELETE', url: `${url}?rev=${rev}`, headers: { 'if-none-match': '"whatever"' } });
    expect(deprecated.statusCode).toBe(200);
    const undeprecated = await send({ method: 'PUT', url: `${url}/undeprecate?rev=${rev + 1}`, headers: { 'if-match': '"whatever"' } });
    expectPreconditionFailed(undeprecated, 'If-Match');
    expect((await send({ method: 'GET', url })).json()._deprecated).toBe(true);
  });

  it('refuses a POST into a collection whose If-Match lists tags, and creates nothing', async () => {
    const before = (await send({ method: 'GET', url: '/v1/resources/org/proj' })).json()._total;
    expectPreconditionFailed(await send({ method: 'POST', url: '/v1/resources/org/proj', headers: { 'if-match': '"x"' }, payload: {} }), 'If-Match');
    expect((await send({ method: 'GET', url: '/v1/resources/org/proj' })).json()._total).toBe(before);
  });

  it('guards organizations and projects alike', async () => {
    expectPreconditionFailed(await send({ method: 'PUT', url: '/v1/orgs/org?rev=1', headers: { 'if-match': '"1"' }, payload: { description: 'changed' } }), 'If-Match');
    expectPreconditionFailed(await send({ method: 'PUT', url: '/v1/orgs/org', headers: { 'if-none-match': '*' }, payload: {} }), 'If-None-Match: *');
    expect((await send({ method: 'GET', url: '/v1/orgs/org' })).json()).toMatchObject({ _rev: 1 });
    expectPreconditionFailed(await send({ method: 'DELETE', url: '/v1/projects/org/proj?rev=1', headers: { 'if-match': '"1"' } }), 'If-Match');
    expect((await send({ method: 'GET', url: '/v1/projects/org/proj' })).json()).toMatchObject({ _rev: 1, _deprecated: false });
    const described = await send({ method: 'PUT', url: '/v1/orgs/org?rev=1', headers: { 'if-match': '*' }, payload: { description: 'changed' } });
    expect(described.statusCode).toBe(200);
  });

  it('guards ACLs: a stored one exists (the owner grant of a project is one), a list of tags never matches it', async () => {
    const aclRev = async (url: string) =>
      (await send({ method: 'GET', url: `${url}?self=false` })).json()._results.filter((entry: { _source: string }) => entry._source === 'store').map((entry: { _rev: number }) => entry._rev);
    const acl = { acl: [{ identity: 'local/bob', permissions: ['resources/read'] }] };
    const [rev] = await aclRev('/v1/acls/org/proj');
    expectPreconditionFailed(await send({ method: 'PUT', url: '/v1/acls/org/proj', headers: { 'if-none-match': '*' }, payload: acl }), 'If-None-Match: *');
    const patch = { '@type': 'Append', acl: [{ identity: 'local/carol', permissions: ['resources/read'] }] };
    expectPreconditionFailed(await send({ method: 'PATCH', url: `/v1/acls/org/proj?rev=${rev}`, headers: { 'if-match': `"${rev}"` }, payload: patch }), 'If-Match');
    expect(await aclRev('/v1/acls/org/proj')).toEqual([rev]);
    // No organization 'elsewhere', so no owner grant: nothing is stored there.
    expectPreconditionFailed(await send({ method: 'PATCH', url: '/v1/acls/elsewhere', headers: { 'if-match': '*' }, payload: patch }), 'If-Match: *');
    expect(await aclRev('/v1/acls/elsewhere')).toEqual([]);
    expect((await send({ method: 'PUT', url: '/v1/acls/elsewhere', headers: { 'if-none-match': '*' }, payload: acl })).statusCode).toBe(201);
  });

  it('guards archives: If-None-Match: * refuses an archive id in use', async () => {
    const definition = { resources: [{ '@type': 'Resource', resourceId: 'thing' }] };
    const headers = { accept: 'application/json', 'if-none-match': '*' };
    expect((await send({ method: 'PUT', url: '/v1/archives/org/proj/bundle', headers, payload: definition })).statusCode).toBe(201);
    const refused = await send({ method: 'PUT', url: '/v1/archives/org/proj/bundle', headers, payload: definition });
    expectPreconditionFailed(refused, 'If-None-Match: *');
    // An archive takes no ?rev=: the advice is for the writes that do (it had read as if this one did).
    expect(refused.json().reason).toContain('A write that takes ?rev= is guarded by the revision');
  });
});

describe('If-Unmodified-Since, against _updatedAt', () => {
  const url = '/v1/resources/org/proj/_/dated';
  const httpDate = (ms: number) => new Date(ms).toUTCString();

  beforeAll(async () => {
    now = T0 + 10_000;
    expect((await send({ method: 'PUT', url, payload: { name: 'first' } })).statusCode).toBe(201);
  });

  it('refuses a write when the target changed after the date, performs it when not', async () => {
    expectPreconditionFailed(
      await send({ method: 'PUT', url: `${url}?rev=1`, headers: { 'if-unmodified-since': httpDate(T0) }, payload: { name: 'second' } }),
      'If-Unmodified-Since',
    );
    expect((await send({ method: 'GET', url })).json()._rev).toBe(1);
    // The same second as the change counts as not after it: HTTP dates have no milliseconds.
    now = T0 + 20_000;
    const updated = await send({ method: 'PUT', url: `${url}?rev=1`, headers: { 'if-unmodified-since': httpDate(T0 + 10_000) }, payload: { name: 'second' } });
    expect(updated.statusCode).toBe(200);
  });

  it('is ignored when If-Match is present, or when it is no HTTP-date', async () => {
    const stale = httpDate(T0);
    const withIfMatch = await send({ method: 'PUT', url: `${url}?rev=2`, headers: { 'if-match': '*', 'if-unmodified-since': stale }, payload: { name: 'third' } });
    expect(withIfMatch.statusCode).toBe(200);
    const list = `${stale}, ${stale}`;
    const notADate = await send({ method: 'PUT', url: `${url}?rev=3`, headers: { 'if-unmodified-since': list }, payload: { name: 'fourth' } });
    expect(notADate.statusCode).toBe(200);
  });

  it('reads the obsolete date forms too', async () => {
    for (const date of ['Sunday, 01-Mar-26 12:00:00 GMT', 'Sun Mar  1 12:00:00 2026']) {
      expectPreconditionFailed(await send({ method: 'DELETE', url: `${url}?rev=4`, headers: { 'if-unmodified-since': date } }), 'If-Unmodified-Since');
    }
    expect((await send({ method: 'GET', url })).json()._deprecated).toBe(false);
  });
});

describe('what comes before the preconditions', () => {
  it('answers a caller who may not read the target 403, not whether it exists', async () => {
    const stranger = { authorization: `Bearer ${TOKENS.carol}` };
    const response = await server.app.inject({ method: 'PUT', url: '/v1/acls/org', headers: { ...stranger, 'if-none-match': '*' }, payload: { acl: [] } });
    expect(response.statusCode).toBe(403);
  });
});
