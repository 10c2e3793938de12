/**
 * Requests Node's HTTP parser refuses, and slow ones: each answered in the vocabulary of the API it
 * addresses, and a request timeout answered near its setting (Node checks every 30 s unless told).
 * Also the rate limit's message, which names its window.
 */
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { rawExchange, type RawAnswer } from './raw-exchange.js';

const TOKEN = 'client-errors-admin';
const AUTH = { tokens: { [TOKEN]: { realm: 'local', subject: 'admin' } }, acls: { '/': { 'local/admin': ['*'] } } };
let fixture: Fixture;
let port: number;

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: AUTH, flags: ['--request-timeout', '1s'] });
  await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  port = (fixture.app.server.address() as net.AddressInfo).port;
});
afterAll(() => fixture.close());

/** Writes `request`, then reads until the server closes the connection; the answer's status, headers (lower-cased names) and body. */
function exchange(request: Buffer | string): Promise<RawAnswer> {
  return rawExchange(port, request, { timeoutMs: 60_000 });
}

describe('requests the HTTP parser refuses', () => {
  it('a URL the router cannot decode: 400 in the vocabulary of the API addressed (/v1x is not /v1)', async () => {
    const answer = (url: string) => fixture.app.inject({ method: 'GET', url });
    for (const url of ['/v1/orgs/%zz', '/v1/%zz']) {
      const platform = await answer(url);
      expect([url, platform.statusCode, platform.json()['@type']]).toEqual([url, 400, 'InvalidPathSegment']);
    }
    for (const url of ['/v1x/%zz', '/v1%zz', '/v10/%zz', '/retrieval/%zz']) {
      const literature = await answer(url);
      expect([url, literature.statusCode, literature.json().detail?.code]).toEqual([url, 400, 8]);
    }
  });

  it('a query string that does not decode to UTF-8: 400 naming %25, not an answer to another question', async () => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const answer = (url: string) => fixture.app.inject({ method: 'GET', url, headers });
    // Latin-1 é, an encoded surrogate, a cut sequence, a bare percent sign: each had been searched as raw text.
    for (const url of ['/retrieval/article_count?topics=caf%E9', '/retrieval/?query=%ED%A0%80', '/retrieval/?query=sleep%E2%82', '/retrieval/?query=100%']) {
      const literature = await answer(url);
      expect([url, literature.statusCode, literature.json().detail?.code]).toEqual([url, 400, 8]);
      expect(literature.json().detail.detail).toMatch(/not UTF-8.*%25/);
    }
    const platform = await answer('/v1/resources/org/proj?q=caf%E9');
    expect([platform.statusCode, platform.json()['@type']]).toEqual([400, 'MalformedQueryParam']);
    // Well-formed escapes still pass: é in UTF-8, an encoded percent sign.
    expect((await answer('/retrieval/article_count?topics=caf%C3%A9')).statusCode).toBe(200);
    expect((await answer('/retrieval/?query=place%20cells%20100%25')).statusCode).toBe(200);
  });

  it("the page's files are served whatever their query string: the page reads it in the browser", async () => {
    const answer = (url: string) => fixture.app.inject({ method: 'GET', url });
    // A user typing `?q=50% inhibition` in the address bar, a cut UTF-8 sequence, a bare percent sign.
    for (const url of ['/ui/?q=50%%20inhibition', '/ui/?q=%E0%A4', '/ui/?q=%', '/ui/app.css?v=%', '/ui/js/main.js?x=%E9', '/docs?x=%']) {
      const page = await answer(url);
      expect([url, page.statusCode]).toEqual([url, 200]);
    }
    const page = await answer('/ui/?q=%E0%A4');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    // Typed without the slash: redirected to the page with the query string as it was sent.
    const redirect = await answer('/ui?q=50%%20inhibition');
    expect([redirect.statusCode, redirect.headers.location]).toEqual([301, 'ui/?q=50%%20inhibition']);
    // A file the page does not have is still not found, and the API next to it still refuses the query.
    expect((await answer('/ui/nothing.js?q=%')).statusCode).toBe(404);
    expect((await answer('/retrieval/article_count?q=%')).statusCode).toBe(400);
    expect((await answer('/openapi.json?q=%')).statusCode).toBe(400);
  });

  it('oversized headers: 431, in the /v1 vocabulary under /v1 and in the literature one elsewhere (code 4, input too large)', async () => {
    const long = 'g'.repeat(20_000);
    const platform = await exchange(`GET /v1/resources/lab/a/_/${long} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(platform.status).toBe(431);
    expect(JSON.parse(platform.body)).toMatchObject({ '@type': 'HeadersTooLarge', reason: 'request headers too large' });
    const literature = await exchange(`GET /retrieval/?query=${long} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(literature.status).toBe(431);
    // A query too long for the headers is as much too large as one over --max-query-length (413 code 4).
    expect(JSON.parse(literature.body)).toEqual({ detail: { code: 4, detail: 'request headers too large' } });
  });

  it('to a HEAD: the head alone, with the Content-Length a GET would get (RFC 9110 §9.3.2)', async () => {
    const long = 'g'.repeat(20_000);
    for (const url of [`/retrieval/?query=${long}`, `/v1/resources/lab/a/_/${long}`]) {
      const head = await exchange(`HEAD ${url} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const get = await exchange(`GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect([head.status, head.body]).toEqual([431, '']);
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
    }
    // Malformed (two lengths): 400, without a body either.
    const malformed = await exchange('HEAD /retrieval/article_count HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n');
    expect([malformed.status, malformed.body]).toEqual([400, '']);
  });

  it('a request line with bytes outside ASCII: 400 in the vocabulary of the API addressed', async () => {
    const platform = await exchange(Buffer.concat([Buffer.from('GET /v1/orgs/lab?x=N'), Buffer.from([0xda, 0xd1]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]));
    expect(platform.status).toBe(400);
    expect(JSON.parse(platform.body)).toMatchObject({ '@type': 'MalformedRequest' });
    const literature = await exchange(Buffer.concat([Buffer.from('GET /retrieval/?query=N'), Buffer.from([0xda]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]));
    expect(literature.status).toBe(400);
    expect(JSON.parse(literature.body).detail.code).toBe(8);
  });
});

describe('answers written before the router', () => {
  it('carry the headers every answer does: nosniff, the sandboxing policy and no referrer', async () => {
    const answers = [
      await exchange(`GET /retrieval/?query=${'g'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      await exchange('GARBAGE\r\n\r\n'),
      await exchange('GET /retrieval/article_count HTTP/1.1\r\nHost: x\r\n'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([431, 400, 408]);
    for (const { headers } of answers) {
      expect(headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox", 'referrer-policy': 'no-referrer' });
    }
  });
});

describe('--request-timeout 1s', () => {
  it('headers that never end get 408 within a few seconds, not after Node’s 30 s check', async () => {
    const answer = await exchange('GET /retrieval/article_count HTTP/1.1\r\nHost: x\r\n');
    expect(answer.status).toBe(408);
    expect(answer.seconds).toBeLessThan(10);
  });

  it('a /v1 body that never ends gets 408 in the /v1 vocabulary', async () => {
    const answer = await exchange(`PUT /v1/orgs/slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"desc`);
    expect(answer.status).toBe(408);
    expect(answer.seconds).toBeLessThan(10);
    expect(JSON.parse(answer.body)).toMatchObject({ '@type': 'RequestTimeout' });
    expect((await fixture.app.inject({ method: 'GET', url: '/v1/orgs/slow', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(404);
  });
});

describe("the README's errors table", () => {
  it('lists 408 in the row of code 8 and 431 in that of code 4, the codes they are answered with', async () => {
    const timedOut = await exchange('GET /retrieval/article_count HTTP/1.1\r\nHost: x\r\n');
    const tooLarge = await exchange(`GET /retrieval/?query=${'g'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const statusesOfCode = (code: number) => new RegExp(`^\\| ${code} \\| ([^|]*) \\|`, 'm').exec(readme)?.[1]?.split('/').map((status) => Number(status.trim()));
    for (const [answer, code] of [[timedOut, 8], [tooLarge, 4]] as const) {
      expect(JSON.parse(answer.body).detail.code).toBe(code);
      expect(statusesOfCode(code)).toContain(answer.status);
      expect(statusesOfCode(code === 8 ? 4 : 8)).not.toContain(answer.status);
    }
  });
});

describe('POST /admin/reload takes no options', () => {
  const reload = (payload?: string, contentType = 'application/json') =>
    fixture.app.inject({ method: 'POST', url: '/admin/reload', headers: { authorization: `Bearer ${TOKEN}`, ...(payload !== undefined && { 'content-type': contentType }) }, payload });

  it('reloads with no body or `{}`', async () => {
    for (const payload of [undefined, '{}', ' { } ']) {
      const answer = await reload(payload);
      expect([payload, answer.statusCode, Object.keys(answer.json())]).toEqual([payload, 200, ['switched', 'generation', 'previous_generation']]);
    }
  });

  it('refuses a key as the other routes refuse one they do not know (it had been ignored), and a body that is no object', async () => {
    const cases: [string, object][] = [
      ['{"x":1}', { parameter: 'x', detail: 'unknown parameter "x" in body' }],
      ['{"generation":2}', { parameter: 'generation', detail: 'unknown parameter "generation" in body' }],
      ['null', { parameter: 'body', detail: 'the body must be a JSON object' }],
      ['[]', { parameter: 'body', detail: 'the body must be a JSON object' }],
    ];
    for (const [payload, detail] of cases) {
      const answer = await reload(payload);
      expect([payload, answer.statusCode, answer.json().detail]).toEqual([payload, 422, { code: 8, ...detail }]);
    }
    expect((await reload('x', 'text/plain')).statusCode).toBe(415);
  });
});

describe('the rate limit', () => {
  it('names its window (a minute), and the time left apart', async () => {
    const limited = await fixtureApp(undefined, {}, { flags: ['--rate-limit', '2'] });
    try {
      // A streamed answer bypasses the reply's hooks, and still tells the caller its budget.
      const streamed = await limited.app.inject({ method: 'POST', url: '/qa/streamed_generative', payload: { query: 'place cells' } });
      expect(streamed.headers).toMatchObject({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' });
      const statuses: number[] = [];
      let last = '';
      for (let i = 0; i < 2; i++) {
        const response = await limited.app.inject({ method: 'GET', url: '/retrieval/article_count' });
        statuses.push(response.statusCode);
        if (response.statusCode === 429) last = response.json().detail.detail;
      }
      expect(statuses).toEqual([200, 429]);
      expect(last).toMatch(/^rate limit of 2 requests per minute exceeded; retry in \d+ (seconds?|minute)$/);
    } finally {
      await limited.close();
    }
  });
});
