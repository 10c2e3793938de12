/**
 * A resource's `@type` holding a control character is refused at write (400 InvalidJsonLdFormat, nothing stored):
 * it had been stored, and the listings' `type` filter, which takes IRIs only, could never find it by that type
 * (an exploratory round's finding).
 */
import { expect, test } from 'vitest';
import { TOKENS, bearer, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

test.each([
  ['an absolute IRI with BEL', 'http://e.org/a\u0007b', 'http://e.org/a<U+0007>b'],
  ['a term with NUL, expanded with the vocabulary', 'a\u0000b', '<U+0000>b'],
  ['one of several types, with DEL', ['Cell', 'http://e.org/x\u007f'], 'http://e.org/x<U+007F>'],
])('%s: 400 InvalidJsonLdFormat naming the type, and nothing stored', async (_, type, shown) => {
  const id = `typed-${Math.random().toString(36).slice(2)}`;
  const response = await server().app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload: { '@type': type } });
  expect([response.statusCode, response.json()['@type']]).toEqual([400, 'InvalidJsonLdFormat']);
  expect(response.json().details).toContain(shown);
  expect(response.json().details).toContain('holds a control character, which no IRI may hold');
  expect((await server().app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${id}`, headers: alice })).statusCode).toBe(404);
});

test('a type with other characters outside ASCII is stored and listed by it', async () => {
  expect((await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/cafe', headers: alice, payload: { '@type': 'http://e.org/Café' } })).statusCode).toBe(201);
  const listed = await server().app.inject({ method: 'GET', url: `/v1/resources/org/proj?type=${encodeURIComponent('http://e.org/Café')}`, headers: alice });
  expect(listed.json()._total).toBe(1);
});
