/**
 * A context defining the term `hasOwnProperty`, which the JSON-LD processor calls on its contexts, is refused before
 * processing with a reason that names the term; the refusal's details had been the processor's own TypeError
 * ("localCtx.hasOwnProperty is not a function"). As a plain property, outside a context, the name is taken.
 */
import { expect, test } from 'vitest';
import { TOKENS, bearer, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);
const REFUSAL = "The payload's JSON-LD context defines the term 'hasOwnProperty', which the JSON-LD processor cannot take: name the term otherwise.";

test('a resource whose context defines it: 400 InvalidJsonLdFormat naming the term, and nothing stored', async () => {
  const payload = { '@context': { hasOwnProperty: 'http://ex.org/h' }, '@type': 'http://ex.org/T' };
  const response = await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/own-term', headers: alice, payload });
  expect([response.statusCode, response.json()['@type'], response.json().details]).toEqual([400, 'InvalidJsonLdFormat', REFUSAL]);
  expect((await server().app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/own-term', headers: alice })).statusCode).toBe(404);
});

test('other names of every object as terms, and the name as a plain property, are taken', async () => {
  const payload = { '@context': { constructor: 'http://ex.org/c', toString: 'http://ex.org/s' }, constructor: 1, hasOwnProperty: 2 };
  const response = await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/other-terms', headers: alice, payload });
  expect(response.statusCode, response.body).toBe(201);
});
