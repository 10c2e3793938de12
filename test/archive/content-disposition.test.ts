/**
 * The `filename*` of a download's Content-Disposition (RFC 6266) holds only
 * RFC 8187 attr-chars and percent-escapes, and decodes to the file's name.
 * Files are what archives pack; an archive itself is always `archive.zip`.
 */
import { expect, test } from 'vitest';
import { TOKENS, bearer, multipart, serverWithProject } from '../platform/helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

/** RFC 8187: ext-value = charset "'" [ language ] "'" value-chars; value-chars = *( pct-encoded / attr-char ). */
const EXT_VALUE = /filename\*=UTF-8''((?:%[0-9A-F]{2}|[A-Za-z0-9!#$&+\-.^_`|~])*)(?:;|$)/;

test("a name holding ' * ( ) ! decodes back to itself from filename*", async () => {
  const name = "it's (final) *draft*! ü.txt";
  const body = await multipart(name, 'content', 'text/plain');
  const uploaded = await server().app.inject({ method: 'PUT', url: '/v1/files/org/proj/marks', headers: { ...alice, ...body.headers }, payload: body.payload });
  expect(uploaded.statusCode).toBe(201);
  const download = await server().app.inject({ method: 'GET', url: '/v1/files/org/proj/marks', headers: alice });
  expect(download.statusCode).toBe(200);
  const value = EXT_VALUE.exec(download.headers['content-disposition'] as string)?.[1];
  expect(value).toBeDefined();
  expect(decodeURIComponent(value!)).toBe(name);
});
