/**
 * JSON bodies of the literature routes: bytes that are not UTF-8, lone surrogates, other charsets,
 * compressed bodies, prototype keys and repeated keys are refused naming what is wrong, never read
 * as another question. The query string refuses the same (query-encoding.ts, validation.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { fixtureApp, type Fixture } from './app-fixture.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await fixtureApp();
});
afterAll(() => fixture.close());

const ask = (payload: string | Buffer, headers: Record<string, string> = {}) =>
  fixture.app.inject({ method: 'POST', url: '/qa/generative', payload, headers: { 'content-type': 'application/json', ...headers } });

describe('literature JSON bodies', () => {
  it('accepts UTF-8, escapes and surrogate pairs as before', async () => {
    for (const body of ['{"query":"What do plàce cells encode?"}', '{"query":"What do pl\\u00e0ce cells encode? \\ud83e\\udde0"}']) {
      const answer = await ask(Buffer.from(body, 'utf8'), { 'content-type': 'application/json; charset=UTF-8' });
      expect([body, answer.statusCode]).toEqual([body, 200]);
    }
  });

  it('refuses bytes that are not UTF-8 with 400 code 8 instead of answering another question', async () => {
    const latin1 = Buffer.from('{"query":"What do pl\xe1ce cells encode?"}', 'latin1');
    const answer = await ask(latin1);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().detail).toEqual({ code: 8, detail: expect.stringContaining('not valid UTF-8') });
  });

  it('refuses lone surrogates, in values and in keys, with 400 code 8', async () => {
    for (const body of ['{"query":"place \\ud800 cells"}', '{"query":"place cells \\udc00"}', '{"query":"x\\ud83e"}', '{"query":"place","\\ud800":1}']) {
      const answer = await ask(body);
      expect([body, answer.statusCode, answer.json().detail.code]).toEqual([body, 400, 8]);
      expect(answer.json().detail.detail).toContain('surrogate');
    }
  });

  it('refuses another charset and a compressed body with 415 code 8', async () => {
    const latin1 = await ask(Buffer.from('{"query":"place cells"}'), { 'content-type': 'application/json; charset=ISO-8859-1' });
    expect([latin1.statusCode, latin1.json().detail.code]).toEqual([415, 8]);
    expect(latin1.json().detail.detail).toContain('iso-8859-1');
    const gzip = await ask(gzipSync('{"query":"place cells"}'), { 'content-encoding': 'gzip' });
    expect([gzip.statusCode, gzip.json().detail.code]).toEqual([415, 8]);
    expect(gzip.json().detail.detail).toContain('Content-Encoding gzip');
  });

  it('refuses a repeated charset with 415 code 8 saying so, whichever comes first (the first had won)', async () => {
    for (const contentType of ['application/json; charset=utf-8; charset=latin1', 'application/json; charset=latin1; charset=utf-8', 'application/json; charset=utf-8; CHARSET=utf-8']) {
      const answer = await ask(Buffer.from('{"query":"place cells"}'), { 'content-type': contentType });
      expect([contentType, answer.statusCode, answer.json().detail.code]).toEqual([contentType, 415, 8]);
      expect(answer.json().detail.detail).toContain('the charset parameter is repeated');
    }
  });

  it('refuses a prototype key with 422 naming it, not as invalid JSON', async () => {
    for (const [body, key] of [['{"query":"x","__proto__":1}', '__proto__'], ['{"query":"x","constructor":{"prototype":{}}}', 'constructor']] as const) {
      const answer = await ask(body);
      expect([body, answer.statusCode, answer.json().detail]).toEqual([body, 422, { code: 8, detail: `the key "${key}" is not accepted`, parameter: key }]);
    }
  });

  it('refuses a repeated key with 422 naming it, as a repeated query parameter is', async () => {
    const answer = await ask('{"query":"place cells","retriever_k":5,"query":"dopamine"}');
    expect(answer.statusCode).toBe(422);
    expect(answer.json().detail).toEqual({ code: 8, detail: '"query" may be given only once', parameter: 'query' });
  });

  it('still refuses JSON that does not parse with 400 code 8', async () => {
    for (const body of ['{"query":', '']) {
      const answer = await ask(body);
      expect([body, answer.statusCode, answer.json().detail.code]).toEqual([body, 400, 8]);
    }
  });
});
