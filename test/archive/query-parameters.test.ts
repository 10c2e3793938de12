/**
 * A download's query takes `ignoreNotFound` alone, as the resource and file routes refuse what they do not
 * take: a misspelt `ignorenotfound=true` was ignored, and the caller who meant to skip missing entries got
 * the archive without the option (a 404 for a missing entry, or a ZIP that looked like the option's answer).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';
import { createArchive } from './archive-fixture.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'r1' } });
  await createArchive(server.app, 'a1', [{ '@type': 'Resource', resourceId: 'r1' }, { '@type': 'Resource', resourceId: 'missing', path: '/missing.json' }]);
});
afterAll(() => server.close());

test.each([['application/zip'], ['application/json']])('an unknown query parameter is 400 MalformedQueryParam naming it (Accept %s)', async (accept) => {
  const response = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/a1?ignorenotfound=true', headers: { ...alice, accept } });
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({ '@type': 'MalformedQueryParam', reason: expect.stringContaining("'ignorenotfound'") });
});

test('ignoreNotFound is still taken', async () => {
  const response = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/a1?ignoreNotFound=true', headers: alice });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('application/zip');
});
