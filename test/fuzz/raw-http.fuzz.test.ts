/**
 * What an HTTP client library would never send, written straight to a real
 * socket: invalid UTF-8 and odd percent-encodings in paths, dot segments a
 * client did not resolve, malformed request lines, oversized headers,
 * bodies that stop short, random bytes. Expected: never a 5xx, never a byte
 * of a file outside the data directory, and the server keeps serving.
 */
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { rawExchange } from '../http/raw-exchange.js';
import { positiveFromEnv } from '../../bench/lib/settings.js';

const RUNS = positiveFromEnv(process.env, 'FUZZ_RUNS', 40, true);
const TOKEN = 'raw-admin';
let fixture: Fixture;
let port: number;

beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: { tokens: { [TOKEN]: { realm: 'local', subject: 'admin' } }, acls: { '/': { 'local/admin': ['*'] } } } });
  await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  port = (fixture.app.server.address() as net.AddressInfo).port;
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  await fixture.app.inject({ method: 'PUT', url: '/v1/orgs/lab', headers, payload: '{}' });
  await fixture.app.inject({ method: 'PUT', url: '/v1/projects/lab/a', headers, payload: '{}' });
});

afterAll(async () => {
  await fixture.close();
});

/** Writes raw bytes, then reads until the server closes or resets the connection, or 1.5 s pass; returns what came back. */
async function exchange(request: Buffer | string, options: { endAfterWrite?: boolean } = {}): Promise<string> {
  return (await rawExchange(port, request, { timeoutMs: 1500, lenient: true, ...options })).text;
}

/** The status codes of every response in a raw answer (pipelining or keep-alive may give several). */
function statuses(answer: string): number[] {
  return [...answer.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
}

function expectNoServerError(answer: string): void {
  for (const status of statuses(answer)) expect(status, answer.slice(0, 300)).toBeLessThan(500);
  // Every error body is in one of the two API vocabularies, including the HTTP parser's own refusals.
  for (const body of answer.split('\r\n\r\n').slice(1)) {
    if (!body.startsWith('{') || !body.includes('"error"')) continue;
    expect.fail(`an error body outside the vocabularies: ${body.slice(0, 200)}`);
  }
  // /etc/passwd and this repository's package.json must never leak through a traversal.
  expect(answer).not.toMatch(/root:.*:0:0:/);
  expect(answer).not.toContain('"name": "litserve"');
}

async function expectStillServing(): Promise<void> {
  const answer = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  expect(statuses(answer)).toEqual([200]);
}

const get = (path: string | Buffer) => Buffer.concat([Buffer.from('GET '), Buffer.from(path), Buffer.from(` HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`)]);

describe('raw HTTP', () => {
  it.each([
    ['invalid UTF-8 in a path segment', get(Buffer.from([0x2f, 0x76, 0x31, 0x2f, 0x6f, 0x72, 0x67, 0x73, 0x2f, 0xff, 0xfe, 0xc0, 0xaf]))],
    ['an overlong UTF-8 dot', get('/v1/files/lab/a/%C0%AE%C0%AE%2F%C0%AE%C0%AE%2Fetc%2Fpasswd')],
    ['encoded traversal in a file id', get('/v1/files/lab/a/..%2F..%2F..%2F..%2Fetc%2Fpasswd')],
    ['raw dot segments', get('/v1/files/lab/a/../../../../../../etc/passwd')],
    ['raw dot segments to the sources', get('/v1/files/lab/../../../package.json')],
    ['a NUL byte', get('/v1/resources/lab/a/_/%00')],
    ['a broken escape', get('/v1/resources/lab/a/_/%ZZ%')],
    ['a path parameter over the limit', get(`/v1/resources/lab/a/_/${'x'.repeat(5000)}`)],
    ['an absolute-form target', get('http://evil.example/v1/orgs/lab')],
    ['an asterisk target', get('*')],
    ['a malformed request line', 'GARBAGE\r\n\r\n'],
    ['an unknown HTTP version', 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['a missing target', 'GET  HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost x\r\n\r\n'],
    ['two Content-Length headers', 'POST /qa/generative HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{"a":1}'],
    ['Content-Length with chunked', 'POST /qa/generative HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a bad chunk size', 'POST /qa/generative HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n'],
  ])('%s', async (_name, request) => {
    const answer = await exchange(request);
    // Every one of these gets an answer (Node's parser answers 400/431 itself for what fastify never sees).
    expect(statuses(answer).length, answer.slice(0, 200)).toBeGreaterThan(0);
    if (process.env.FUZZ_VERBOSE) console.log(_name, statuses(answer), answer.split('\r\n\r\n')[1]?.slice(0, 150));
    expectNoServerError(answer);
    await expectStillServing();
  });

  it.each([
    ['a JSON body that stops short', `POST /v1/resources/lab/a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`],
    ['a chunked body that stops short', `PUT /v1/resources/lab/a/_/short HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"nam`],
    [
      'a multipart upload that stops short',
      `POST /v1/files/lab/a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: multipart/form-data; boundary=xyz\r\nContent-Length: 100000\r\n\r\n--xyz\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\n\r\n${'data '.repeat(1000)}`,
    ],
  ])('%s, then the client leaves: nothing is stored', async (_name, request) => {
    const before = await listing();
    expectNoServerError(await exchange(request, { endAfterWrite: true }));
    await expectStillServing();
    expect(await listing()).toEqual(before);
  });

  it('random bytes never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
          fc.uint8Array({ maxLength: 100 }).map((bytes) => Buffer.concat([Buffer.from('GET /v1/'), Buffer.from(bytes), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')])),
          fc.string({ maxLength: 200 }).map((s) => `POST /qa/generative HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(s)}\r\n\r\n${s}`),
        ),
        async (request) => {
          expectNoServerError(await exchange(request, { endAfterWrite: true }));
        },
      ),
      { numRuns: RUNS },
    );
    await expectStillServing();
  });
});

async function listing(): Promise<unknown> {
  const response = await fixture.app.inject({ method: 'GET', url: '/v1/resources/lab/a', headers: { authorization: `Bearer ${TOKEN}` } });
  return response.json()._total;
}
