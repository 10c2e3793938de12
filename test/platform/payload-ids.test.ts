/**
 * A payload `@id` names the resource JSON-LD says it names, and the resource is found again under
 * the `_self` the write answered with: a prefix of the payload's own context or of the project's API
 * mappings is expanded, and the RDF subject is the stored id.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE, TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);
const base = `${BASE}/v1/resources/org/proj/_/`;

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj', { apiMappings: [{ prefix: 'cell', namespace: 'https://cells.example.org/' }] });
});
afterAll(() => server.close());

function path(url: string): string {
  return url.slice(BASE.length);
}

describe('payload ids', () => {
  test.each([
    ['a project API mapping', { '@id': 'cell:43', name: 'a' }, 'https://cells.example.org/43'],
    ['a default API mapping', { '@id': 'nxv:thing', name: 'b' }, 'https://bluebrain.github.io/nexus/vocabulary/thing'],
    ['a prefix of the payload context', { '@context': { ex: 'http://ex.org/' }, '@id': 'ex:1', name: 'c' }, 'http://ex.org/1'],
    ['the payload context winning over a mapping', { '@context': { cell: 'http://other.org/cells/' }, '@id': 'cell:7', name: 'd' }, 'http://other.org/cells/7'],
    ['a relative reference', { '@id': 'sub/y', name: 'e' }, `${base}sub/y`],
    // As JSON-LD resolves it, against the payload's own @base: taken against the project base, its stored source had
    // named http://other.org/x to any JSON-LD tool, another resource than its _self.
    ['a relative reference, against the payload\'s own @base', { '@context': { '@base': 'http://other.org/' }, '@id': 'x', name: 'f' }, 'http://other.org/x'],
    ['a relative reference, against the project base when the context sets no @base', { '@context': { ex: 'http://ex.org/' }, '@id': 'y', name: 'g' }, `${base}y`],
  ])('%s: stored as the expanded IRI, found under its _self, the RDF subject', async (_, payload, expected) => {
    const created = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload });
    expect(created.statusCode).toBe(201);
    const { '@id': id, _self: self } = created.json();
    expect(id).toBe(expected);
    const fetched = await server.app.inject({ method: 'GET', url: path(self), headers: alice });
    expect(fetched.statusCode).toBe(200);
    const triples = await server.app.inject({ method: 'GET', url: path(self), headers: { ...alice, accept: 'application/n-triples' } });
    expect(triples.body).toContain(`<${expected}> <https://bluebrain.github.io/nexus/vocabulary/rev> "1"`);
  });

  test('the same mapped id in the URL and in the payload agree', async () => {
    const response = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/cell:44', headers: alice, payload: { '@id': 'cell:44' } });
    expect(response.statusCode).toBe(201);
    expect(response.json()['@id']).toBe('https://cells.example.org/44');
    const update = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/cell:44?rev=1', headers: alice, payload: { '@id': 'cell:44', v: 2 } });
    expect(update.statusCode).toBe(200);
  });

  test('a relative id under a base that is not hierarchical (urn:x:) is the base plus the id, in the URL as in the payload', async () => {
    await createProject(server.app, 'org', 'urns', { base: 'urn:x:' });
    const put = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/urns/_/a', headers: alice, payload: { '@id': 'a' } });
    expect(put.statusCode).toBe(201);
    expect(put.json()['@id']).toBe('urn:x:a');
  });

  test('a blank node id names no resource: the URL id, or a new one, is used', async () => {
    const put = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/named', headers: alice, payload: { '@id': '_:b0', name: 'n' } });
    expect(put.statusCode).toBe(201);
    expect(put.json()['@id']).toBe(`${base}named`);
    const post = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload: { '@id': '_:b0', name: 'm' } });
    expect(post.statusCode).toBe(201);
    expect(post.json()['@id']).toMatch(new RegExp(`^${base}[0-9a-f-]{36}$`));
  });
});

describe('ids holding a lone surrogate', () => {
  test('are refused (400 InvalidResourceId) and store nothing, where they made a 500 after storing the resource', async () => {
    const before = (await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj?size=1', headers: alice })).json()._total;
    for (const payload of [{ '@id': '\ud800' }, { '@id': 'cell:\udc00x' }, { '@context': { id: '@id' }, id: 'http://ex.org/\ud800' }]) {
      const response = await server.app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: alice, payload });
      expect(response.statusCode).toBe(400);
      expect(response.json()['@type']).toBe('InvalidResourceId');
    }
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/org/proj?size=1', headers: alice })).json()._total).toBe(before);
  });

  test('a project base holding one is refused', async () => {
    const response = await server.app.inject({ method: 'PUT', url: '/v1/projects/org/surrogate', headers: alice, payload: { base: 'http://ex.org/\ud800/' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
  });
});
