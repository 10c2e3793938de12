/**
 * API mapping prefixes the project schema takes but a URI scheme does not (`_` and `.` in them, a leading `_`):
 * they had been stored and never applied, so `my_lab:b` named `<base>my_lab:b` rather than the mapped namespace
 * (a second pass's finding). Names of every object's properties are prefixes like any other.
 */
import { beforeAll, expect, test } from 'vitest';
import { TOKENS, bearer, createProject, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);
const MAPPINGS = [
  { prefix: '_x_', namespace: 'http://ex.org/u/' },
  { prefix: 'my_lab', namespace: 'http://ex.org/lab/' },
  { prefix: 'v1.2', namespace: 'http://ex.org/v12/' },
  { prefix: '__proto__', namespace: 'http://ex.org/p/' },
  { prefix: 'hasOwnProperty', namespace: 'http://ex.org/h/' },
];

beforeAll(() => createProject(server().app, 'org', 'mapped', { apiMappings: MAPPINGS }));

function inject(method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) {
  return server().app.inject({ method, url, headers: alice, ...(payload && { payload }) });
}

test.each([
  ['_x_:a', 'http://ex.org/u/a'],
  ['my_lab:b', 'http://ex.org/lab/b'],
  ['v1.2:c', 'http://ex.org/v12/c'],
  ['__proto__:d', 'http://ex.org/p/d'],
  ['hasOwnProperty:e', 'http://ex.org/h/e'],
])('%s in a URL expands to %s, and reads back under either', async (segment, iri) => {
  const created = await inject('PUT', `/v1/resources/org/mapped/_/${encodeURIComponent(segment)}`, { name: segment });
  expect([created.statusCode, created.json()['@id']]).toEqual([201, iri]);
  expect((await inject('GET', `/v1/resources/org/mapped/_/${encodeURIComponent(segment)}`)).json().name).toBe(segment);
  expect((await inject('GET', `/v1/resources/org/mapped/_/${encodeURIComponent(iri)}`)).json().name).toBe(segment);
});

test('a payload @id with such a prefix, without a context of its own, expands as in URLs', async () => {
  const created = await inject('POST', '/v1/resources/org/mapped', { '@id': 'my_lab:from-payload', name: 'payload' });
  expect([created.statusCode, created.json()['@id']]).toEqual([201, 'http://ex.org/lab/from-payload']);
});

test("the listings' type filter expands such a prefix", async () => {
  await inject('PUT', '/v1/resources/org/mapped/_/typed', { '@type': 'http://ex.org/lab/Cell' });
  const listed = await inject('GET', `/v1/resources/org/mapped?type=${encodeURIComponent('my_lab:Cell')}`);
  expect([listed.statusCode, listed.json()._total]).toEqual([200, 1]);
});
