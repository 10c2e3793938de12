/**
 * A revision renders under the project's base and vocab of its write, as Nexus renders the expanded form it
 * made then: after `PUT /v1/projects/…?rev=1 {"vocab": …}`, reads of earlier revisions (expanded, N-Triples)
 * had shown the new vocabulary's IRIs, while the listing's type filter still matched the type of the write.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

const alice = bearer(TOKENS.alice);
const OLD_VOCAB = 'https://old.example.org/terms/';
const NEW_VOCAB = 'https://new.example.org/terms/';
const OLD_BASE = 'https://old.example.org/data/';
const NEW_BASE = 'https://new.example.org/data/';
const resource = `/v1/resources/org/proj/_/${encodeURIComponent(`${OLD_BASE}neuron`)}`;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj', { vocab: OLD_VOCAB, base: OLD_BASE });
  const created = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/neuron', headers: alice, payload: { '@type': 'Cell', name: 'first', near: { '@id': 'other' } } });
  expect(created.statusCode, created.body).toBe(201);
  const changed = await server.app.inject({ method: 'PUT', url: '/v1/projects/org/proj?rev=1', headers: alice, payload: { vocab: NEW_VOCAB, base: NEW_BASE } });
  expect(changed.statusCode, changed.body).toBe(200);
});
afterAll(() => server.close());

const read = async (query: string, accept = 'application/ld+json') => {
  const response = await server.app.inject({ method: 'GET', url: `${resource}${query}`, headers: { ...alice, accept } });
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
};

const expanded = async (query: string) => (JSON.parse(await read(`${query}${query ? '&' : '?'}format=expanded`)) as Record<string, unknown>[])[0]!;

describe("a project's new base and vocab", () => {
  test('leave the revision written before them as it was written: expanded, N-Triples, and the type filter', async () => {
    const before = await expanded('');
    expect(before['@type']).toEqual([`${OLD_VOCAB}Cell`]);
    expect(before[`${OLD_VOCAB}name`]).toEqual([{ '@value': 'first' }]);
    expect(before[`${OLD_VOCAB}near`]).toEqual([{ '@id': `${OLD_BASE}other` }]);
    const triples = await read('?rev=1', 'application/n-triples');
    expect(triples).toContain(`<${OLD_BASE}neuron> <${OLD_VOCAB}near> <${OLD_BASE}other> .\n`);
    expect(triples).not.toContain(NEW_VOCAB);
    const listed = await server.app.inject({ method: 'GET', url: `/v1/resources/org/proj?type=${encodeURIComponent(`${OLD_VOCAB}Cell`)}`, headers: alice });
    expect(listed.json()._total).toBe(1);
  });

  test('apply to what is written after them; earlier revisions and tags of them keep theirs', async () => {
    const updated = await server.app.inject({ method: 'PUT', url: `${resource}?rev=1`, headers: alice, payload: { '@type': 'Cell', name: 'second', near: { '@id': 'other' } } });
    expect(updated.statusCode, updated.body).toBe(200);
    const latest = await expanded('');
    expect(latest['@type']).toEqual([`${NEW_VOCAB}Cell`]);
    expect(latest[`${NEW_VOCAB}near`]).toEqual([{ '@id': `${NEW_BASE}other` }]);
    expect((await expanded('?rev=1'))['@type']).toEqual([`${OLD_VOCAB}Cell`]);

    // A tag is a revision of its own that keeps the latest payload, and so its processing.
    const tagged = await server.app.inject({ method: 'POST', url: `${resource}/tags?rev=2`, headers: alice, payload: { tag: 'v1', rev: 1 } });
    expect(tagged.statusCode, tagged.body).toBe(201);
    expect((await expanded('?rev=3'))['@type']).toEqual([`${NEW_VOCAB}Cell`]);
    expect((await expanded('?tag=v1'))['@type']).toEqual([`${OLD_VOCAB}Cell`]);
  });

  test('make the same payload sent again under them a change, where it had been ignored', async () => {
    const created = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/same', headers: alice, payload: { name: 'kept' } });
    expect(created.statusCode, created.body).toBe(201);
    const unchanged = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/same?rev=1', headers: alice, payload: { name: 'kept' } });
    expect(unchanged.json()._rev).toBe(1);
    const project = await server.app.inject({ method: 'GET', url: '/v1/projects/org/proj', headers: alice });
    const moved = await server.app.inject({ method: 'PUT', url: `/v1/projects/org/proj?rev=${project.json()._rev}`, headers: alice, payload: { vocab: OLD_VOCAB, base: NEW_BASE } });
    expect(moved.statusCode, moved.body).toBe(200);
    const again = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/same?rev=1', headers: alice, payload: { name: 'kept' } });
    expect(again.json()._rev).toBe(2);
    const response = await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/same?format=expanded', headers: alice });
    expect(response.json()[0][`${OLD_VOCAB}name`]).toEqual([{ '@value': 'kept' }]);
  });
});
