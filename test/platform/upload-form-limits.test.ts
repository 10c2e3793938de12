/**
 * An upload's form past its bounds is refused in words that name the bound and what an upload holds; it had
 * been 413 with @fastify/multipart's "reach fields limit" (an exploratory round's finding).
 */
import { expect, test } from 'vitest';
import { TOKENS, bearer, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

async function formWithFields(fields: number): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (let i = 0; i < fields; i++) form.append(`note${i}`, 'x');
  form.append('file', new Blob(['content'], { type: 'text/plain' }), 'a.txt');
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type')! } };
}

test('a form with more fields than the bound is 413 naming the bound, and stores nothing', async () => {
  const form = await formWithFields(5000);
  const response = await server().app.inject({ method: 'PUT', url: '/v1/files/org/proj/many-fields', headers: { ...alice, ...form.headers }, payload: form.payload });
  expect([response.statusCode, response.json()['@type'], response.json().reason]).toEqual([
    413,
    'PayloadTooLarge',
    "The form holds more than 10 fields besides the file: an upload is one part named 'file' holding the file (other fields are not read).",
  ]);
  expect((await server().app.inject({ method: 'GET', url: '/v1/files/org/proj/many-fields', headers: { ...alice, accept: 'application/json' } })).statusCode).toBe(404);
});

test('a form field named as a property of every object is 400 saying so, where the parser gave its own words', async () => {
  const form = new FormData();
  form.append('toString', 'x');
  form.append('file', new Blob(['content'], { type: 'text/plain' }), 'a.txt');
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  const payload = Buffer.from(await request.arrayBuffer());
  const response = await server().app.inject({
    method: 'PUT',
    url: '/v1/files/org/proj/proto-field',
    headers: { ...alice, 'content-type': request.headers.get('content-type')! },
    payload,
  });
  expect([response.statusCode, response.json()['@type']]).toEqual([400, 'InvalidFile']);
  expect(response.json().reason).toContain('A form field is named as a property of every object');
});

test('a form with fields up to the bound is taken', async () => {
  const form = await formWithFields(10);
  const response = await server().app.inject({ method: 'PUT', url: '/v1/files/org/proj/ten-fields', headers: { ...alice, ...form.headers }, payload: form.payload });
  expect(response.statusCode).toBe(201);
});
