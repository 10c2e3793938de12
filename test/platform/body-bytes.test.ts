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
    // Which of two charsets counts would be a guess (the first had won): refused, as on the literature API.
    ['a repeated charset', { 'content-type': 'application/json; charset=utf-8; charset=latin1' }, Buffer.from('{"name":"place"}'), 415, 'UnsupportedMediaType', 'charset parameter is repeated'],
    ['a content coding', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, Buffer.from('{"name":"place"}'), 415, 'UnsupportedMediaType', 'Content-Encoding gzip'],
  ])('%s: refused, naming why, and nothing stored', async (_, headers, payload, status, type, reason) => {
    const before = await listed();
    const created = await server().app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: { ...alice, ...headers }, payload });
    expect([created.statusCode, created.json()['@type']]).toEqual([status, type]);
    expect(created.json().reason).toContain(reason);
    expect(await listed()).toBe(before);
  });

  test.each([
    ['a key given twice', '{"name":"a","name":"b"}', 'The key "name" is given more than once'],
    ['a nested key given twice', '{"about":{"a":"http://x/","a":"http://y/"}}', 'The key "about.a" is given more than once'],
    ['a key spelt with an escape given twice', '{"name":"a","\\u006eame":"b"}', 'The key "name" is given more than once'],
    ['a __proto__ key', '{"name":"a","__proto__":{"admin":true}}', 'The key "__proto__" is not accepted'],
    ['a constructor.prototype key', '{"x":{"constructor":{"prototype":{}}}}', 'The key "constructor" is not accepted'],
    ['text that is not JSON', '{"name":', 'The body is not valid JSON'],
  ])('%s: 400 DecodingFailed naming it, and nothing stored', async (_, payload, reason) => {
    const before = await listed();
    const created = await server().app.inject({ method: 'POST', url: '/v1/resources/org/proj/_', headers: { ...alice, 'content-type': 'application/json' }, payload });
    expect([created.statusCode, created.json()['@type']]).toEqual([400, 'DecodingFailed']);
    expect(created.json().reason).toContain(reason);
    expect(await listed()).toBe(before);
  });

  test('a key given twice in an update changes nothing', async () => {
    const created = await server().app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/twice', headers: alice, payload: { name: 'first' } });
    expect(created.statusCode).toBe(201);
    const updated = await server().app.inject({
      method: 'PUT',
      url: '/v1/resources/org/proj/_/twice?rev=1',
      headers: { ...alice, 'content-type': 'application/json' },
      payload: '{"name":"second","name":"third"}',
    });
    expect(updated.statusCode).toBe(400);
    const read = await server().app.inject({ method: 'GET', url: '/v1/resources/org/proj/_/twice', headers: alice });
    expect([read.json()._rev, read.json().name]).toEqual([1, 'first']);
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
