/**
 * A /v1 body refused by its size or media type names the limit and what is taken: fastify's own words,
 * "Request body is too large" and "Unsupported Media Type", had named neither (the docs round's finding),
 * where the literature routes' refusals name both.
 */
import { expect, test } from 'vitest';
import { TOKENS, bearer, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

test('a body over the route limit is 413 naming the limit, and nothing is stored', async () => {
  const response = await server().app.inject({
    method: 'PUT',
    url: '/v1/orgs/large',
    headers: { ...alice, 'content-type': 'application/json' },
    payload: JSON.stringify({ description: 'x'.repeat(70 * 1024) }),
  });
  expect([response.statusCode, response.json()['@type'], response.json().reason]).toEqual([413, 'PayloadTooLarge', 'The body is larger than the 65536 bytes (64 KiB) this route takes.']);
  expect((await server().app.inject({ method: 'GET', url: '/v1/orgs/large', headers: alice })).statusCode).toBe(404);
});

test('a body of another media type is 415 naming what is taken and what was sent', async () => {
  const text = await server().app.inject({ method: 'PUT', url: '/v1/orgs/texts', headers: { ...alice, 'content-type': 'text/plain' }, payload: '{}' });
  expect([text.statusCode, text.json()['@type'], text.json().reason]).toEqual([415, 'UnsupportedMediaType', 'The body must be application/json or application/ld+json, not Content-Type text/plain.']);
  // An upload sent as raw bytes (the operator round's curl --data-binary) is told what an upload is.
  const raw = await server().app.inject({ method: 'POST', url: '/v1/files/org/proj', headers: { ...alice, 'content-type': 'application/octet-stream' }, payload: 'bytes' });
  expect([raw.statusCode, raw.json()['@type'], raw.json().reason]).toEqual([
    415,
    'UnsupportedMediaType',
    "The body must be multipart/form-data (a part named 'file' holding the file), not Content-Type application/octet-stream.",
  ]);
});
