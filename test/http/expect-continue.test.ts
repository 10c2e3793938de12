/**
 * `Expect: 100-continue` over real sockets: the 100 comes only once the body is about to be read,
 * so a request refused by its route's hooks, by no route at all or by its declared length is answered
 * without inviting the body, and the connection closed.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { multipart } from '../platform/helpers.js';

const TOKENS = { writer: 'writer-token' };
const AUTH = {
  tokens: { [TOKENS.writer]: { realm: 'local', subject: 'writer' } },
  acls: { '/': { 'local/writer': ['*'] } },
};

let fixture: Fixture;
let port: number;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: AUTH });
  await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  port = (fixture.app.server.address() as net.AddressInfo).port;
  for (const [url, payload] of [['/v1/orgs/org', {}], ['/v1/projects/org/proj', {}]] as const) {
    const created = await fixture.app.inject({ method: 'PUT', url, headers: { authorization: `Bearer ${TOKENS.writer}` }, payload });
    expect(created.statusCode).toBe(201);
  }
});
afterAll(() => fixture.close());

interface Exchange {
  /** Status lines of the interim (1xx) responses, in order. */
  interim: string[];
  /** Status of the final response; 0 if none came within the wait. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection after its answer. */
  closed: boolean;
  /** Whether the body was sent (only after a 100, as a client that waits for it does). */
  bodySent: boolean;
}

/**
 * Sends `head`, then `body` only when a 100 Continue comes; reads the final response and waits a
 * moment to see whether the server closes the connection.
 */
function exchange(head: string, body?: Buffer | string): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
    let received = Buffer.alloc(0);
    const result: Exchange = { interim: [], status: 0, headers: {}, body: '', closed: false, bodySent: false };
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(giveUp);
      socket.destroy();
      resolve(result);
    };
    const giveUp = setTimeout(finish, 5000);
    let afterFinal: NodeJS.Timeout | undefined;
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (;;) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0 || result.status !== 0) break;
        const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
        const status = Number(statusLine!.split(' ')[1]);
        if (status < 200) {
          result.interim.push(statusLine!);
          received = received.subarray(end + 4);
          if (status === 100 && body !== undefined && !result.bodySent) {
            result.bodySent = true;
            socket.write(body);
          }
          continue;
        }
        const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        // A HEAD's Content-Length describes a body it does not carry.
        const length = head.startsWith('HEAD ') ? 0 : Number(headers['content-length'] ?? 0);
        if (received.length < end + 4 + length) break;
        result.status = status;
        result.headers = headers;
        result.body = received.subarray(end + 4, end + 4 + length).toString('utf8');
        // The answer is whole: a closing server sends its FIN right after it.
        afterFinal = setTimeout(finish, 500);
      }
    });
    const closed = () => {
      result.closed = true;
      if (result.status !== 0) {
        clearTimeout(afterFinal);
        finish();
      }
    };
    socket.on('end', closed);
    socket.on('close', closed);
    socket.on('error', closed);
  });
}

const qaBody = JSON.stringify({ query: 'place cells' });
const request = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
const expectingQa = (headers: Record<string, string | number> = {}) =>
  request('POST', '/qa/generative', { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(qaBody), Expect: '100-continue', ...headers });

describe('Expect: 100-continue', () => {
  it('a literature request its route refuses is answered without a 100: a bad token 401, no permission 403', async () => {
    const badToken = await exchange(expectingQa({ Authorization: 'Bearer nobody-has-this' }), qaBody);
    expect(badToken.interim).toEqual([]);
    expect(badToken.status).toBe(401);
    expect(JSON.parse(badToken.body).detail.code).toBe(9);
    expect(badToken.headers.connection).toBe('close');
    expect(badToken.closed).toBe(true);

    const anonymous = await exchange(expectingQa(), qaBody);
    expect(anonymous.interim).toEqual([]);
    expect(anonymous.status).toBe(403);
    expect(anonymous.closed).toBe(true);
  });

  it('without Expect too, a literature request refused before its body is read closes the connection rather than read the rest', async () => {
    // A body declared a megabyte long of which the client has sent only the start: kept alive, the connection would wait for the rest.
    const partly = (headers: Record<string, string>) =>
      request('POST', '/qa/generative', { 'Content-Type': 'application/json', 'Content-Length': 1024 * 1024, ...headers }) + qaBody;
    for (const [headers, status] of [[{ Authorization: 'Bearer nobody-has-this' }, 401], [{}, 403]] as const) {
      const refused = await exchange(partly(headers));
      expect(refused.status).toBe(status);
      expect(refused.headers.connection).toBe('close');
      expect(refused.closed).toBe(true);
    }
  });

  it('a /v1 upload its route refuses is answered without a 100, and nothing is stored', async () => {
    const { payload, headers } = await multipart('refused.bin', Buffer.alloc(50_000, 'r'));
    const upload = (authorization: Record<string, string>) =>
      request('PUT', '/v1/files/org/proj/refused', { 'Content-Type': headers['content-type']!, 'Content-Length': payload.length, Expect: '100-continue', ...authorization });
    const platformBadToken = await exchange(upload({ Authorization: 'Bearer nobody-has-this' }), payload);
    expect(platformBadToken.interim).toEqual([]);
    expect(platformBadToken.status).toBe(401);
    expect(platformBadToken.closed).toBe(true);
    // Permission is checked in the handler, before the upload's stream is read.
    const platformAnonymous = await exchange(upload({}), payload);
    expect(platformAnonymous.interim).toEqual([]);
    expect(platformAnonymous.status).toBe(403);
    expect(platformAnonymous.closed).toBe(true);
    const stored = await fixture.app.inject({ method: 'GET', url: '/v1/files/org/proj/refused', headers: { authorization: `Bearer ${TOKENS.writer}` } });
    expect(stored.statusCode).toBe(404);
  });

  it('a path no route takes is answered 404 without a 100', async () => {
    const unrouted = await exchange(request('POST', '/no-such-route', { 'Content-Type': 'application/json', 'Content-Length': 2, Expect: '100-continue' }), '{}');
    expect(unrouted.interim).toEqual([]);
    expect(unrouted.status).toBe(404);
    expect(unrouted.closed).toBe(true);
  });

  it('a Content-Length over the body limit is answered 413 without a 100, and without waiting for the body', async () => {
    const oversized = await exchange(expectingQa({ Authorization: `Bearer ${TOKENS.writer}`, 'Content-Length': 100 * 1024 * 1024 }), qaBody);
    expect(oversized.interim).toEqual([]);
    expect(oversized.status).toBe(413);
    expect(oversized.closed).toBe(true);
    const unannounced = await exchange(
      request('POST', '/qa/generative', { Authorization: `Bearer ${TOKENS.writer}`, 'Content-Type': 'application/json', 'Content-Length': 100 * 1024 * 1024 }),
    );
    expect(unannounced.status).toBe(413);
    expect(unannounced.headers.connection).toBe('close');
    expect(unannounced.closed).toBe(true);
  });

  it('an authorised, routed request gets its 100, then its answer once the body is sent, and keeps the connection', async () => {
    const answered = await exchange(expectingQa({ Authorization: `Bearer ${TOKENS.writer}` }), qaBody);
    expect(answered.interim).toEqual(['HTTP/1.1 100 Continue']);
    expect(answered.bodySent).toBe(true);
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body).answer).toEqual(expect.any(String));
    expect(answered.closed).toBe(false);
  });

  it('a /v1 file upload gets its 100 before its multipart body is read, and is stored', async () => {
    const content = Buffer.alloc(300_000, 'u');
    const { payload, headers } = await multipart('expected.bin', content);
    const uploaded = await exchange(
      request('PUT', '/v1/files/org/proj/expected', {
        Authorization: `Bearer ${TOKENS.writer}`,
        'Content-Type': headers['content-type']!,
        'Content-Length': payload.length,
        Expect: '100-continue',
      }),
      payload,
    );
    expect(uploaded.interim).toEqual(['HTTP/1.1 100 Continue']);
    expect(uploaded.status).toBe(201);
    const stored = await fixture.app.inject({ method: 'GET', url: '/v1/files/org/proj/expected', headers: { authorization: `Bearer ${TOKENS.writer}` } });
    expect(stored.statusCode).toBe(200);
    expect(stored.rawPayload.equals(content)).toBe(true);
  });

  it('GET and HEAD with Expect are answered as usual; HTTP/1.0 ignores Expect; other expectations get 417', async () => {
    const authorization = { Authorization: `Bearer ${TOKENS.writer}`, Expect: '100-continue' };
    const get = await exchange(request('GET', '/retrieval/article_count', authorization));
    expect(get.status).toBe(200);
    expect(JSON.parse(get.body).article_count).toBe(4);
    const head = await exchange(request('HEAD', '/healthz', { Expect: '100-continue' }));
    expect(head.status).toBe(200);

    const http10 = await exchange(
      `POST /qa/generative HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.writer}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(qaBody)}\r\nExpect: 100-continue\r\n\r\n${qaBody}`,
    );
    expect(http10.interim).toEqual([]);
    expect(http10.status).toBe(200);

    const unknownExpectation = await exchange(expectingQa({ Authorization: `Bearer ${TOKENS.writer}`, Expect: 'something-else' }), qaBody);
    expect(unknownExpectation.interim).toEqual([]);
    expect(unknownExpectation.status).toBe(417);
    // The client may send its body anyway: on a connection kept, it would be read as the next request.
    expect(unknownExpectation.headers.connection).toBe('close');
    expect(unknownExpectation.closed).toBe(true);
  });

  it('a /v1 upload declared longer than any file that fits is 413 before its body, with or without Expect', async () => {
    // The largest file is --max-upload-bytes (10 GiB by default); this body could not hold a file that fits.
    for (const expectation of [{ Expect: '100-continue' }, {}] as Record<string, string>[]) {
      const declared = await exchange(
        request('PUT', '/v1/files/org/proj/huge', {
          Authorization: `Bearer ${TOKENS.writer}`,
          'Content-Type': 'multipart/form-data; boundary=x',
          'Content-Length': 20 * 1024 ** 3,
          ...expectation,
        }),
      );
      expect(declared.interim).toEqual([]);
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.body)).toMatchObject({ '@type': 'FileTooLarge' });
      expect(declared.headers.connection).toBe('close');
      expect(declared.closed).toBe(true);
    }
  });
});
