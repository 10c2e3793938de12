/**
 * Routes that take no body accept an empty one labelled JSON, as clients send DELETE and undeprecate
 * requests with `Content-Type: application/json` and nothing after it; routes that need a body still
 * refuse an empty one.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  const created = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { '@type': 'Cell' } });
  expect(created.statusCode).toBe(201);
});
afterAll(() => server.close());

describe('an empty body labelled JSON', () => {
  test.each(['application/json', 'application/ld+json'])('deprecates and undeprecates with Content-Type %s', async (type) => {
    const headers = { ...alice, 'content-type': type };
    const current = (await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/r1', headers: alice })).json()._rev as number;
    const deprecated = await server.app.inject({ method: 'DELETE', url: `/v1/resources/org/proj/_/r1?rev=${current}`, headers, payload: '' });
    expect([deprecated.statusCode, deprecated.json()._deprecated]).toEqual([200, true]);
    const restored = await server.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/r1/undeprecate?rev=${current + 1}`, headers, payload: '' });
    expect([restored.statusCode, restored.json()._deprecated]).toEqual([200, false]);
  });

  test('is still refused where a body is needed, and nothing is stored', async () => {
    const response = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r2', headers: { ...alice, 'content-type': 'application/json' }, payload: '' });
    expect([response.statusCode, response.json()['@type']]).toEqual([400, 'DecodingFailed']);
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/r2', headers: alice })).statusCode).toBe(404);
  });
});
