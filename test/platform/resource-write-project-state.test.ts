/**
 * A resource write's JSON-LD checks run on a render thread, in its caller's turn (up to seconds behind
 * other callers' jobs); the project may be deprecated or marked for deletion meanwhile. The project is
 * checked again when the revision is committed, so the write is refused as one started then would be.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** Runs `meanwhile` once, when the next write's JSON-LD check (the expansion giving its types) is asked for, before it runs. */
function onNextRendering(meanwhile: () => Promise<void>): void {
  const { renderer } = server.platform;
  const expandedTypes = renderer.expandedTypes.bind(renderer);
  renderer.expandedTypes = async (view, caller) => {
    renderer.expandedTypes = expandedTypes;
    await meanwhile();
    return expandedTypes(view, caller);
  };
}

const changeProject = (url: string) => async () => {
  expect((await server.app.inject({ method: 'DELETE', url, headers: alice })).statusCode).toBe(200);
};

test('a resource created while its project is deprecated is refused, and not stored', async () => {
  await createProject(server.app, 'org', 'deprecated-meanwhile');
  onNextRendering(changeProject('/v1/projects/org/deprecated-meanwhile?rev=1'));
  const created = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/deprecated-meanwhile/_/r1', headers: alice, payload: { name: 'late' } });
  expect(created.statusCode).toBe(400);
  expect(created.json()['@type']).toBe('ProjectIsDeprecated');
  expect((await server.app.inject({ method: 'GET', url: '/v1/resources/org/deprecated-meanwhile/_/r1', headers: alice })).statusCode).toBe(404);
});

test('a resource updated while its project is deprecated is refused, and keeps its revision', async () => {
  await createProject(server.app, 'org', 'deprecated-before-update');
  const url = '/v1/resources/org/deprecated-before-update/_/r1';
  expect((await server.app.inject({ method: 'PUT', url, headers: alice, payload: { name: 'first' } })).statusCode).toBe(201);
  onNextRendering(changeProject('/v1/projects/org/deprecated-before-update?rev=1'));
  const updated = await server.app.inject({ method: 'PUT', url: `${url}?rev=1`, headers: alice, payload: { name: 'second' } });
  expect(updated.statusCode).toBe(400);
  expect(updated.json()['@type']).toBe('ProjectIsDeprecated');
  expect((await server.app.inject({ method: 'GET', url, headers: alice })).json()).toMatchObject({ name: 'first', _rev: 1 });
});

test('a resource created while its project is marked for deletion is refused', async () => {
  await createProject(server.app, 'org', 'pruned-meanwhile');
  onNextRendering(changeProject('/v1/projects/org/pruned-meanwhile?rev=1&prune=true'));
  const created = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/pruned-meanwhile/_/r1', headers: alice, payload: { name: 'late' } });
  expect(created.statusCode).toBe(400);
  expect(created.json()['@type']).toBe('ProjectIsMarkedForDeletion');
});
