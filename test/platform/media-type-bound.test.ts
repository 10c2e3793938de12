/**
 * A file's media type is echoed as the Content-Type of its download: an unbounded one made
 * responses no client would read (header overflow). RFC 6838 bounds type and subtype at 127
 * characters each; a longer media type is refused, and the upload stores nothing.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

const fileCount = async () => (await server.app.inject({ method: 'GET', url: '/v1/files/org/proj', headers: alice })).json()._total;

async function upload(mediaType: string) {
  const body = await multipart('data.bin', 'content', mediaType);
  return server.app.inject({ method: 'POST', url: '/v1/files/org/proj', headers: { ...alice, ...body.headers }, payload: body.payload });
}

// The bound broken is named with its own count: a 128-character subtype had been told the whole type's 140 characters.
test.each([
  ['a subtype of 81 KB', `application/${'x'.repeat(81_000)}`, 'has 81012 characters: at most 255 are allowed.'],
  ['a subtype of 128 characters', `application/${'x'.repeat(128)}`, 'has a subtype of 128 characters: at most 127 are allowed (RFC 6838).'],
  ['a type of 128 characters', `${'x'.repeat(128)}/plain`, 'has a type of 128 characters: at most 127 are allowed (RFC 6838).'],
])('a media type with %s is 400 InvalidFile naming the bound, and nothing is stored', async (_kind, mediaType, reason) => {
  const before = await fileCount();
  const response = await upload(mediaType);
  expect(response.statusCode).toBe(400);
  expect(response.json()['@type']).toBe('InvalidFile');
  expect(response.json().reason).toBe(`The file's media type (Content-Type of its part) ${reason}`);
  expect(await fileCount()).toBe(before);
});

test('a media type at the bound (127 characters of type, 127 of subtype) is stored and served', async () => {
  const mediaType = `${'t'.repeat(127)}/${'s'.repeat(127)}`;
  const response = await upload(mediaType);
  expect(response.statusCode).toBe(201);
  expect(response.json()._mediaType).toBe(mediaType);
  const download = await server.app.inject({ method: 'GET', url: new URL(response.json()._self).pathname, headers: alice });
  expect(download.headers['content-type']).toBe(mediaType);
});
