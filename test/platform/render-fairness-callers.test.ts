/**
 * Render jobs take turns by caller (render-fairness.test.ts): the jobs a request causes must name its
 * caller, or they share one turn with everyone else's. Here: a resource write's checks, an archive
 * download's entries, an archive definition's own @context, and the representations /v1 reads render.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Identity } from '../../src/platform/identities.js';
import { type RenderCaller, renderCallerOf } from '../../src/platform/render-queue.js';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

const alice = bearer(TOKENS.alice);
const aliceIdentity: Identity = { subject: { type: 'User', realm: 'local', subject: 'alice' }, principals: [] };

let server: TestServer;
const callers: { method: string; caller: RenderCaller | undefined }[] = [];
beforeAll(async () => {
  server = await startServer({ renderThreads: 1 });
  await createProject(server.app, 'org', 'proj');
  const { renderer } = server.platform;
  const { json, entry, text, expandedTypes } = {
    json: renderer.json.bind(renderer),
    entry: renderer.entry.bind(renderer),
    text: renderer.text.bind(renderer),
    expandedTypes: renderer.expandedTypes.bind(renderer),
  };
  renderer.json = (view, format, caller) => (callers.push({ method: 'json', caller }), json(view, format, caller));
  renderer.expandedTypes = (view, caller) => (callers.push({ method: 'expandedTypes', caller }), expandedTypes(view, caller));
  renderer.text = (view, format, caller) => (callers.push({ method: 'text', caller }), text(view, format, caller));
  renderer.entry = (view, format, caller) => (callers.push({ method: 'entry', caller }), entry(view, format, caller));
});
afterAll(() => server.close());

test("a resource write's JSON-LD checks are rendered in its caller's turn", async () => {
  callers.length = 0;
  const payload = { '@context': { ex: 'https://example.org/' }, '@id': 'ex:r1', name: 'checked' };
  expect((await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/https%3A%2F%2Fexample.org%2Fr1', headers: alice, payload })).statusCode).toBe(201);
  // The payload's id expanded with its own prefixes, then the whole payload expanded for its types.
  expect(callers).toEqual([
    { method: 'json', caller: renderCallerOf(aliceIdentity) },
    { method: 'expandedTypes', caller: renderCallerOf(aliceIdentity) },
  ]);
  const update = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/https%3A%2F%2Fexample.org%2Fr1?rev=1', headers: alice, payload: { ...payload, name: 'changed' } });
  expect(update.statusCode).toBe(200);
  expect(callers.slice(2)).toEqual([
    { method: 'json', caller: renderCallerOf(aliceIdentity) },
    { method: 'expandedTypes', caller: renderCallerOf(aliceIdentity) },
  ]);
});

test("an archive download's entries are rendered in its caller's turn", async () => {
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r2', headers: alice, payload: { name: 'archived' } });
  const resources = ['n-quads', 'compacted'].map((format) => ({ '@type': 'Resource', resourceId: 'r2', format, path: `/r2/${format}` }));
  const created = await server.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/a1', headers: { ...alice, accept: 'application/json' }, payload: { resources } });
  expect(created.statusCode).toBe(201);
  callers.length = 0;
  const zip = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/a1', headers: { ...alice, accept: 'application/zip' } });
  expect(zip.statusCode).toBe(200);
  expect(callers).toEqual([
    { method: 'entry', caller: renderCallerOf(aliceIdentity) },
    { method: 'entry', caller: renderCallerOf(aliceIdentity) },
  ]);
});

test("an archive definition's own @context is checked in its caller's turn", async () => {
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r3', headers: alice, payload: { name: 'third' } });
  callers.length = 0;
  const payload = { '@context': { ex: 'https://example.org/' }, resources: [{ '@type': 'Resource', resourceId: 'r3' }] };
  const created = await server.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/a2', headers: { ...alice, accept: 'application/json' }, payload });
  expect(created.statusCode).toBe(201);
  expect(callers).toEqual([{ method: 'json', caller: renderCallerOf(aliceIdentity) }]);
});

test("the representations /v1 reads render are rendered in the reader's turn", async () => {
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r4', headers: alice, payload: { name: 'read' } });
  const upload = await multipart('notes.txt', 'some notes', 'text/plain');
  const file = await server.app.inject({ method: 'PUT', url: '/v1/files/org/proj/notes', headers: { ...alice, ...upload.headers }, payload: upload.payload });
  expect(file.statusCode).toBe(201);
  callers.length = 0;
  const reads = [
    { url: '/v1/resources/org/proj/_/r4', accept: 'application/ld+json' },
    { url: '/v1/resources/org/proj/_/r4', accept: 'application/n-triples' },
    { url: '/v1/resources/org/proj/_/r4/source', accept: 'application/json' },
    { url: '/v1/files/org/proj/notes', accept: 'application/ld+json' },
  ];
  for (const { url, accept } of reads) expect((await server.app.inject({ method: 'GET', url, headers: { ...alice, accept } })).statusCode, url).toBe(200);
  const aliceTurn = renderCallerOf(aliceIdentity);
  expect(callers).toEqual([
    { method: 'json', caller: aliceTurn },
    { method: 'text', caller: aliceTurn },
    { method: 'json', caller: aliceTurn },
    { method: 'json', caller: aliceTurn },
  ]);
});
