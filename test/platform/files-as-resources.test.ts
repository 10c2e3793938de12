/**
 * Files are resources (as in Nexus): the resource listing holds them, and under the `_` schema the
 * resource routes read them (their metadata, as /v1/files answers a JSON caller, and their tags) with
 * the same permission, but never change them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UNCONSTRAINED_SCHEMA } from '../../src/platform/contexts.js';
import { BASE, DEFAULT_AUTH, TOKENS, type TestServer, bearer, createProject, multipart, serverWithProject, startServer } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);
const asJson = { ...alice, accept: 'application/json' };
/** The full id of the file `trace`, in the project's default base. */
const traceId = `${BASE}/v1/resources/org/proj/_/trace`;

async function putFile(url: string, content: string) {
  const body = await multipart('trace.csv', content, 'text/csv');
  const response = await server().app.inject({ method: 'PUT', url, headers: { ...alice, ...body.headers }, payload: body.payload });
  expect(response.statusCode).toBeLessThan(300);
}

function get(url: string, headers: Record<string, string> = alice) {
  return server().app.inject({ method: 'GET', url, headers });
}

/** File `trace`: revision 1 `t,v\n0,1\n`, revision 2 `t,v\n0,1\n1,2\n`, revision 3 tags revision 1 `first`. */
beforeAll(async () => {
  await putFile('/v1/files/org/proj/trace', 't,v\n0,1\n');
  await putFile('/v1/files/org/proj/trace?rev=1', 't,v\n0,1\n1,2\n');
  expect((await server().app.inject({ method: 'POST', url: '/v1/files/org/proj/trace/tags?rev=2', headers: alice, payload: { tag: 'first', rev: 1 } })).statusCode).toBe(201);
});

describe('reading a file under the _ schema', () => {
  test('answers the metadata /v1/files answers a JSON caller', async () => {
    const asResource = await get('/v1/resources/org/proj/_/trace');
    expect(asResource.statusCode).toBe(200);
    expect(asResource.headers['content-type']).toMatch(/^application\/ld\+json/);
    const asFile = await get('/v1/files/org/proj/trace', asJson);
    expect(asResource.json()).toEqual(asFile.json());
    expect(asResource.json()).toMatchObject({
      '@id': traceId,
      '@type': 'File',
      _self: `${BASE}/v1/files/org/proj/${encodeURIComponent(traceId)}`,
      _rev: 3,
      _filename: 'trace.csv',
      _bytes: 12,
    });
  });

  test('?rev= and ?tag= select a revision as for /v1/files, in the same error vocabulary', async () => {
    for (const query of ['rev=1', 'tag=first', 'rev=2']) {
      const asResource = await get(`/v1/resources/org/proj/_/trace?${query}`);
      expect(asResource.statusCode).toBe(200);
      expect(asResource.json()).toEqual((await get(`/v1/files/org/proj/trace?${query}`, asJson)).json());
    }
    expect((await get('/v1/resources/org/proj/_/trace?tag=first')).json()).toMatchObject({ _rev: 1, _bytes: 8 });
    for (const [query, type] of [
      ['rev=9', 'RevisionNotFound'],
      ['tag=nope', 'TagNotFound'],
    ]) {
      const asResource = await get(`/v1/resources/org/proj/_/trace?${query}`);
      expect([asResource.statusCode, asResource.json()['@type']]).toEqual([404, type]);
      expect((await get(`/v1/files/org/proj/trace?${query}`, asJson)).json()['@type']).toBe(type);
    }
  });

  test('negotiates as a resource: JSON, expanded JSON-LD, RDF', async () => {
    const json = await get('/v1/resources/org/proj/_/trace', asJson);
    expect([json.statusCode, json.headers['content-type']]).toEqual([200, 'application/json; charset=utf-8']);
    const expanded = await get('/v1/resources/org/proj/_/trace?format=expanded');
    expect(expanded.json()[0]['@id']).toBe(traceId);
    const triples = await get('/v1/resources/org/proj/_/trace', { ...alice, accept: 'application/n-triples' });
    expect(triples.statusCode).toBe(200);
    expect(triples.body).toContain(`<${traceId}> <https://bluebrain.github.io/nexus/vocabulary/filename> "trace.csv"`);
  });

  test('…/tags lists the file\'s tags', async () => {
    const tags = await get('/v1/resources/org/proj/_/trace/tags');
    expect(tags.statusCode).toBe(200);
    expect(tags.json().tags).toEqual([{ tag: 'first', rev: 1 }]);
  });

  test('…/source is 404 ResourceNotFound: a file has no source, its content is at its _self', async () => {
    for (const url of ['/v1/resources/org/proj/_/trace/source', '/v1/resources/org/proj/_/trace/source?annotate=true']) {
      const source = await get(url);
      expect([source.statusCode, source.json()['@type']]).toEqual([404, 'ResourceNotFound']);
    }
  });

  test('a named schema (resource, or the unconstrained IRI) does not constrain files: 404 ResourceNotFound', async () => {
    for (const schema of ['resource', encodeURIComponent(UNCONSTRAINED_SCHEMA)]) {
      for (const path of ['', '/tags']) {
        const response = await get(`/v1/resources/org/proj/${schema}/trace${path}`);
        expect([response.statusCode, response.json()['@type']]).toEqual([404, 'ResourceNotFound']);
      }
    }
  });

  test('an id that names nothing is 404 ResourceNotFound', async () => {
    expect((await get('/v1/resources/org/proj/_/nothing')).json()['@type']).toBe('ResourceNotFound');
  });
});

describe('changing a file through the resource routes', () => {
  test('every write is a 4xx naming the file, and the file stays as it was', async () => {
    const before = (await get('/v1/files/org/proj/trace', asJson)).json();
    const writes: [method: 'PUT' | 'POST' | 'DELETE', url: string, payload: object | undefined, status: number, type: string][] = [
      ['PUT', '/v1/resources/org/proj/_/trace', { a: 1 }, 409, 'ResourceAlreadyExists'],
      ['POST', '/v1/resources/org/proj', { '@id': 'trace', a: 1 }, 409, 'ResourceAlreadyExists'],
      ['PUT', '/v1/resources/org/proj/_/trace?rev=3', { a: 1 }, 400, 'ResourceIsAFile'],
      ['POST', '/v1/resources/org/proj/_/trace/tags?rev=3', { tag: 'later', rev: 2 }, 400, 'ResourceIsAFile'],
      ['DELETE', '/v1/resources/org/proj/_/trace/tags/first?rev=3', undefined, 400, 'ResourceIsAFile'],
      ['DELETE', '/v1/resources/org/proj/_/trace?rev=3', undefined, 400, 'ResourceIsAFile'],
      ['PUT', '/v1/resources/org/proj/_/trace/undeprecate?rev=3', undefined, 400, 'ResourceIsAFile'],
    ];
    for (const [method, url, payload, status, type] of writes) {
      const response = await server().app.inject({ method, url, headers: alice, ...(payload && { payload }) });
      expect([method, url, response.statusCode, response.json()['@type']]).toEqual([method, url, status, type]);
      if (type === 'ResourceIsAFile') expect(response.json().reason).toContain(`/v1/files/org/proj/${encodeURIComponent(traceId)};`);
    }
    expect((await get('/v1/files/org/proj/trace', asJson)).json()).toEqual(before);
    expect((await get('/v1/files/org/proj/trace')).body).toBe('t,v\n0,1\n1,2\n');
  });
});

describe('permissions', () => {
  let guarded: TestServer;
  beforeAll(async () => {
    // bob may read the project only; carol and anonymous callers may read nothing.
    guarded = await startServer({
      auth: { tokens: DEFAULT_AUTH.tokens, acls: { '/': { 'local/alice': ['*'] }, '/org/proj': { 'local/bob': ['resources/read'] } } },
    });
    await createProject(guarded.app, 'org', 'proj');
    const body = await multipart('a.txt', 'guarded', 'text/plain');
    await guarded.app.inject({ method: 'PUT', url: '/v1/files/org/proj/doc', headers: { ...alice, ...body.headers }, payload: body.payload });
  });
  afterAll(() => guarded.close());

  test('reading under _ takes what reading through /v1/files takes: resources/read on the project', async () => {
    const callers: [name: string, headers: Record<string, string>, status: number][] = [
      ['bob', bearer(TOKENS.bob), 200],
      ['carol', bearer(TOKENS.carol), 403],
      ['anonymous', {}, 403],
    ];
    for (const [name, headers, status] of callers) {
      const asResource = await guarded.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/doc', headers });
      const asFile = await guarded.app.inject({ method: 'GET', url: '/v1/files/org/proj/doc', headers: { ...headers, accept: 'application/json' } });
      expect([name, asResource.statusCode, asResource.json()['@type']]).toEqual([name, status, asFile.json()['@type']]);
      expect(asResource.body).toBe(asFile.body);
    }
  });
});
