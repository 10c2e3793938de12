/**
 * A /v1 JSON body is read as UTF-8 or refused: bytes that are not UTF-8 had been stored with U+FFFD in
 * place of what was sent, and a compressed body or another charset had been read as UTF-8 text.
 */
import { describe, expect, test } from 'vitest';
import { TOKENS, bearer, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

const listed = async () => (await server().app.inject({ method: 'GET', url: '/v1/resources/org/proj', headers: alice })).json()._total as number;

describe('the bytes of a /v1 JSON body', () => {
  test.each([
    ['Latin-1 bytes', { 'content-type': 'application/json' }, Buffer.from('{"name":"pl\xe1ce"}', 'latin1'), 400, 'DecodingFailed', 'not valid UTF-8'],
    ['another charset', { 'content-type': 'application/ld+json; charset=iso-8859-1' }, Buffer.from('{"name":"place"}'), 415, 'UnsupportedMediaType', 'Charset iso-8859-1 is not supported'],
    ['a content coding', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, Buffer.from('{"name":"place"}'), 415, 'UnsupportedMediaType', 'Content-Encoding gzip'],
  ])('%s: refused, naming why, and nothing stored', async (_, headers, payload, status, type, reason) => {
    const before = await listed();
    const created = await server().app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: { ...alice, ...headers }, payload });
    expect([created.statusCode, created.json()['@type']]).toEqual([status, type]);
    expect(created.json().reason).toContain(reason);
    expect(await listed()).toBe(before);
  });

  test('UTF-8, said or not, is read as sent', async () => {
    for (const contentType of ['application/json', 'application/json; charset=UTF-8']) {
      const created = await server().app.inject({
        method: 'POST',
        url: '/v1/resources/org/proj/_',
        headers: { ...alice, 'content-type': contentType },
        payload: Buffer.from('{"name":"pl\u00e1ce 😀"}'),
      });
      expect(created.statusCode).toBe(201);
      const read = await server().app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${encodeURIComponent(created.json()['@id'])}/source`, headers: alice });
      expect(read.json().name).toBe('pl\u00e1ce 😀');
    }
  });
});
