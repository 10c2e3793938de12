/**
 * A payload may name its resource through a term its own context aliases to `@id`: that is honoured
 * like `@id` (it must agree with the URL, it names a POSTed resource), and the JSON-LD check and the
 * representations never add an `@id` beside it (which JSON-LD refuses as colliding keywords).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE, TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

const alice = bearer(TOKENS.alice);
const base = `${BASE}/v1/resources/org/proj/_/`;
const vocab = `${BASE}/v1/vocabs/org/proj/`;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

const write = (method: 'PUT' | 'POST', path: string, payload: object) =>
  server.app.inject({ method, url: `/v1/resources/org/proj/_${path}`, headers: alice, payload });
const read = (path: string, accept = 'application/ld+json') =>
  server.app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${path}`, headers: { ...alice, accept } });

describe('an alias of @id', () => {
  test('PUT: the alias names the resource the URL names; every representation renders', async () => {
    const payload = { '@context': { id: '@id' }, id: 'ka2', name: 'aliased' };
    const created = await write('PUT', '/ka2', payload);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()['@id']).toBe(`${base}ka2`);
    expect((await read('ka2/source')).json()).toEqual(payload);
    // The id is written under the payload's own key, never under both.
    const annotated = (await read('ka2/source?annotate=true')).json();
    expect(annotated).toMatchObject({ id: `${base}ka2`, name: 'aliased', _rev: 1 });
    expect(annotated).not.toHaveProperty('@id');
    expect((await read('ka2')).json()).toMatchObject({ id: `${base}ka2`, name: 'aliased' });
    expect((await read('ka2?format=expanded')).json()[0]['@id']).toBe(`${base}ka2`);
    expect((await read('ka2', 'application/n-triples')).body).toContain(`<${base}ka2> <${vocab}name> "aliased" .\n`);
  });

  test('PUT: an update may name the resource through the alias too', async () => {
    const updated = await write('PUT', '/ka2?rev=1', { '@context': { id: '@id' }, id: `${base}ka2`, name: 'again' });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()._rev).toBe(2);
  });

  test('POST: the alias names the new resource; an expanded term definition aliases as well', async () => {
    const simple = await write('POST', '', { '@context': { id: '@id' }, id: 'alias-x' });
    expect(simple.statusCode, simple.body).toBe(201);
    expect(simple.json()['@id']).toBe(`${base}alias-x`);
    expect((await read('alias-x')).statusCode).toBe(200);
    const expanded = await write('POST', '', { '@context': [{ name: 'https://schema.org/name' }, { identifier: { '@id': '@id' } }], identifier: 'alias-y' });
    expect(expanded.statusCode, expanded.body).toBe(201);
    expect(expanded.json()['@id']).toBe(`${base}alias-y`);
  });

  test('an alias that disagrees with the URL is 400 UnexpectedId, as for @id', async () => {
    const response = await write('PUT', '/one', { '@context': { id: '@id' }, id: 'two' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'UnexpectedId', reason: "Id 'one' does not match the id on payload 'two'." });
  });

  test('an alias must hold a string; naming the resource twice is invalid JSON-LD', async () => {
    const number = await write('POST', '', { '@context': { id: '@id' }, id: 5 });
    expect(number.statusCode).toBe(400);
    expect(number.json()).toMatchObject({ '@type': 'DecodingFailed', reason: "The payload 'id' must be a string." });
    const twice = await write('PUT', '/twice', { '@context': { id: '@id' }, id: 'twice', '@id': 'twice' });
    expect(twice.statusCode).toBe(400);
    expect(twice.json()['@type']).toBe('InvalidJsonLdFormat');
    expect(twice.json().details).toMatch(/colliding keywords/);
  });

  test('a term redefined by a later context, or a `_`-prefixed one, is no alias', async () => {
    const redefined = await write('POST', '', { '@context': [{ id: '@id' }, { id: 'https://schema.org/identifier' }], id: 'just-a-value' });
    expect(redefined.statusCode, redefined.body).toBe(201);
    expect(redefined.json()['@id']).toMatch(new RegExp(`^${base}[0-9a-f-]{36}$`));
    const platformOwned = await write('PUT', '/owned', { '@context': { _id: '@id' }, _id: 'elsewhere' });
    expect(platformOwned.statusCode, platformOwned.body).toBe(201);
    expect(platformOwned.json()['@id']).toBe(`${base}owned`);
  });
});

describe('a plain @id', () => {
  test('behaves as before: names POSTed resources, must agree with the URL and be a string', async () => {
    const posted = await write('POST', '', { '@id': 'plain', name: 'plain' });
    expect(posted.json()['@id']).toBe(`${base}plain`);
    const annotated = (await read('plain/source?annotate=true')).json();
    expect(annotated['@id']).toBe(`${base}plain`);
    expect(annotated).not.toHaveProperty('id');
    const put = await write('PUT', '/plain-put', { '@id': `${base}plain-put` });
    expect(put.statusCode).toBe(201);
    const mismatch = await write('PUT', '/one', { '@id': 'two' });
    expect(mismatch.json()).toMatchObject({ '@type': 'UnexpectedId', reason: "Id 'one' does not match the id on payload 'two'." });
    const number = await write('POST', '', { '@id': 5 });
    expect(number.json()).toMatchObject({ '@type': 'DecodingFailed', reason: "The payload '@id' must be a string." });
  });
});
