/**
 * A resource's `@type` holding a character no IRI may hold (a control character, a space, one of `<>"{}|\^` and
 * the backtick) is refused at every write of a payload (400 InvalidJsonLdFormat, nothing stored): it had been
 * stored, and the listings' `type` filter, which takes IRIs only, could never find it by that type (findings of
 * exploratory rounds).
 */
import { expect, test } from 'vitest';
import { BASE, TOKENS, bearer, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);
const vocab = `${BASE}/v1/vocabs/org/proj/`;

const newId = () => `typed-${Math.random().toString(36).slice(2)}`;
const read = (id: string) => server().app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${id}`, headers: alice });

function expectRefused(response: { statusCode: number; json(): Record<string, string> }, shown: string, held: string): void {
  expect([response.statusCode, response.json()['@type']]).toEqual([400, 'InvalidJsonLdFormat']);
  expect(response.json().details).toBe(`The type '${shown}' holds ${held}, which no IRI may hold.`);
}

type Case = [name: string, type: string | string[], shown: string, held: string];

test.each<Case>([
  ['an absolute IRI with BEL', 'http://e.org/a\u0007b', 'http://e.org/a<U+0007>b', 'a control character'],
  ['a term with NUL, expanded with the vocabulary', 'a\u0000b', `${vocab}a<U+0000>b`, 'a control character'],
  ['one of several types, with DEL', ['Cell', 'http://e.org/x\u007f'], 'http://e.org/x<U+007F>', 'a control character'],
  ['an absolute IRI with a space', 'http://e.org/a b', 'http://e.org/a b', 'a space'],
  ['a term with a space, expanded with the vocabulary', 'Lab Member', `${vocab}Lab Member`, 'a space'],
  ...[...'<>"{}|\\^`'].map((character): Case => [`an absolute IRI with ${character}`, `http://e.org/a${character}b`, `http://e.org/a${character}b`, `the character '${character}'`]),
])('%s: 400 InvalidJsonLdFormat naming the type and the character, and nothing stored', async (_, type, shown, held) => {
  const id = newId();
  const response = await server().app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload: { '@type': type } });
  expectRefused(response, shown, held);
  expect((await read(id)).statusCode).toBe(404);
});

test('a creation without an id and an update are refused alike, the resource left as it was', async () => {
  const created = await server().app.inject({ method: 'POST', url: '/v1/resources/org/proj', headers: alice, payload: { '@type': 'http://e.org/a|b' } });
  expectRefused(created, 'http://e.org/a|b', "the character '|'");
  const id = newId();
  expect((await server().app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload: { '@type': 'Cell' } })).statusCode).toBe(201);
  const updated = await server().app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}?rev=1`, headers: alice, payload: { '@type': 'http://e.org/a>b' } });
  expectRefused(updated, 'http://e.org/a>b', "the character '>'");
  expect((await read(id)).json()).toMatchObject({ '@type': 'Cell', _rev: 1 });
});

test('a type with other characters outside ASCII is stored and listed by it', async () => {
  expect((await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/cafe', headers: alice, payload: { '@type': 'http://e.org/Café' } })).statusCode).toBe(201);
  const listed = await server().app.inject({ method: 'GET', url: `/v1/resources/org/proj?type=${encodeURIComponent('http://e.org/Café')}`, headers: alice });
  expect(listed.json()._total).toBe(1);
});
