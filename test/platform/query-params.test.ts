/**
 * Query parameters a /v1 route does not take are refused, not ignored: a Nexus user's listing parameter
 * this server lacks (`sort`, `q`) or `?tag=` on an organization would otherwise get an answer that looks
 * right and is not (every resource in id order, the latest revision). The listing filters it has are
 * in listing-pages.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/orgs/org?rev=1', headers: alice, payload: { description: 'second' } });
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/live', headers: alice, payload: { '@type': 'Neuron' } });
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/old', headers: alice, payload: { '@type': 'Cell' } });
  await server.app.inject({ method: 'DELETE', url: '/v1/resources/org/proj/_/old?rev=1', headers: alice });
  const upload = await multipart('a.txt', 'a', 'text/plain');
  await server.app.inject({ method: 'PUT', url: '/v1/files/org/proj/a', headers: { ...alice, ...upload.headers }, payload: upload.payload });
});
afterAll(() => server.close());

describe('unknown query parameters', () => {
  test.each([
    ['GET', '/v1/resources/org/proj?q=neuron', 'q'],
    ['GET', '/v1/resources/org/proj?sort=_createdAt', 'sort'],
    ['GET', '/v1/files/org/proj?schema=_', 'schema'],
    ['GET', '/v1/orgs/org?tag=v1', 'tag'],
    ['GET', '/v1/projects/org/proj?tag=v1', 'tag'],
    ['GET', '/v1/resources/org/proj/_/live?annotate=true', 'annotate'],
    ['GET', '/v1/resources/org/proj/_/live/source?format=expanded', 'format'],
    ['GET', '/v1/files/org/proj/a?revision=1', 'revision'],
    ['DELETE', '/v1/resources/org/proj/_/live?rev=1&prune=true', 'prune'],
    ['GET', '/v1/acls/org?selff=false', 'selff'],
    ['DELETE', '/v1/acls/org?rev=1&force=true', 'force'],
  ])('%s %s is 400 MalformedQueryParam naming the parameter', async (method, url, name) => {
    const response = await server.app.inject({ method: method as 'GET' | 'DELETE', url, headers: alice });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'MalformedQueryParam' });
    expect(response.json().reason).toContain(`'${name}'`);
  });

  test.each([
    ['POST', '/v1/resources/org/proj?id=created', {}, 'id'],
    ['POST', '/v1/resources/org/proj/_?rev=1', {}, 'rev'],
    ['POST', '/v1/archives/org/proj?ignoreNotFound=true', { resources: [] }, 'ignoreNotFound'],
    ['PUT', '/v1/archives/org/proj/kept?expiresInSeconds=60', { resources: [] }, 'expiresInSeconds'],
    ['PUT', '/v1/acls/org/proj?revision=0', { acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'bob' }, permissions: ['resources/read'] }] }, 'revision'],
  ])('a creation %s %s is 400 MalformedQueryParam naming the parameter, and creates nothing', async (method, url, payload, name) => {
    const listed = async () => (await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj', headers: alice })).json()._total as number;
    const before = await listed();
    const response = await server.app.inject({ method: method as 'POST' | 'PUT', url, headers: { ...alice, accept: 'application/json' }, payload });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'MalformedQueryParam' });
    expect(response.json().reason).toContain(`'${name}'`);
    expect(await listed()).toBe(before);
    expect((await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/kept', headers: { ...alice, accept: 'application/json' } })).statusCode).toBe(404);
  });

  test('a long unknown name is quoted by its start, not whole', async () => {
    const name = `x${'é'.repeat(9_999)}`;
    const response = await server.app.inject({ method: 'GET', url: `/v1/orgs/org?${encodeURIComponent(name)}=1`, headers: alice });
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toContain(`'x${'é'.repeat(63)}… (10000 characters)'`);
    expect(response.body.length).toBeLessThan(400);
  });

  test('a refused deprecation changes nothing', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/live', headers: alice });
    expect(response.json()).toMatchObject({ _rev: 1, _deprecated: false });
  });

  test('the parameters a route takes still work', async () => {
    // The file `a` is listed among the resources, before them by its id.
    const listing = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj?from=2&size=1', headers: alice });
    expect(listing.statusCode).toBe(200);
    expect(listing.json()).toMatchObject({ _total: 3, _results: [{ '@type': 'Cell', _deprecated: true }] });
    const source = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/old/source?rev=1&annotate=true', headers: alice });
    expect(source.json()).toMatchObject({ '@type': 'Cell', _rev: 1, _deprecated: false });
  });
});
