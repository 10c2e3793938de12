/**
 * Ids are bounded at 1,024 bytes once expanded, the project base included, which the client does not
 * write: a refusal for that bound says so, with the length and the bound, rather than only that the id
 * "cannot be expanded".
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_IRI_BYTES } from '../../src/platform/iri.js';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);
/** The default base of org/proj: what a URL segment or a relative `@id` is appended to. */
const PROJECT_BASE = 'http://platform.test/v1/resources/org/proj/_/';
const overBound = 'a'.repeat(MAX_IRI_BYTES - PROJECT_BASE.length + 1);
const boundMessage = `it has ${MAX_IRI_BYTES + 1} bytes; an id has at most ${MAX_IRI_BYTES} bytes`;

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

describe('an id over the bound once expanded', () => {
  test('a resource URL segment short of the bound itself: 400 InvalidResourceId naming the length and the bound', async () => {
    const response = await server.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${overBound}`, headers: alice, payload: {} });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('InvalidResourceId');
    expect(response.json().reason).toContain(boundMessage);
  });

  test('a relative payload @id: the same', async () => {
    const response = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj', headers: alice, payload: { '@id': overBound } });
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toContain(boundMessage);
  });

  test('a file id: the same, and nothing stored', async () => {
    const body = await multipart('data.txt', 'content', 'text/plain');
    const response = await server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/${overBound}`, headers: { ...alice, ...body.headers }, payload: body.payload });
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toContain(boundMessage);
    expect((await server.app.inject({ method: 'GET', url: '/v1/files/org/proj', headers: alice })).json()._total).toBe(0);
  });

  test('one byte shorter, the id is taken', async () => {
    const response = await server.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${overBound.slice(1)}`, headers: alice, payload: {} });
    expect(response.statusCode).toBe(201);
  });

  test('an id refused for another reason does not blame the bound', async () => {
    const response = await server.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${encodeURIComponent('a b')}`, headers: alice, payload: {} });
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toBe("Resource identifier 'a b' cannot be expanded to an Iri.");
  });
});
