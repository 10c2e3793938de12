/**
 * Requests framed in ways the server does not take, over raw sockets: each is refused by the app,
 * so with a request id, the security headers, a JSON body in the vocabulary of the API addressed and
 * a log line (Node had answered some with a bare status, closed CONNECT unanswered, and let the rest through).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { capturingLogger } from './captured-log.js';
import { rawExchange, type RawAnswer } from './raw-exchange.js';

const { lines, logger } = capturingLogger();
let fixture: Fixture;
let port: number;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: null, logger });
  await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  port = (fixture.app.server.address() as net.AddressInfo).port;
});
afterAll(() => fixture.close());

/** Sends raw bytes; the first answer, read up to the server closing the connection (or 3 s: some refusals keep it open). */
function rawAnswer(request: string): Promise<RawAnswer> {
  return rawExchange(port, request, { timeoutMs: 3000, lenient: true });
}

/** The answer is a refusal as every other: JSON body, request id, security headers, closed, logged under its id. */
async function expectRefusal(answer: RawAnswer, status: number): Promise<unknown> {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['connection']).toBe('close');
  const id = answer.headers['x-request-id'];
  expect(id).toMatch(/^[0-9a-f]{32}$/);
  await new Promise((resolve) => setTimeout(resolve, 50)); // pino writes asynchronously
  expect(lines.filter((line) => line.reqId === id)).toEqual([expect.objectContaining({ level: 30, statusCode: status })]);
  return JSON.parse(answer.body);
}

describe('transport refusals', () => {
  it('refuses an HTTP/1.1 request without Host, or with two, in the vocabulary of the API addressed', async () => {
    const none = await rawAnswer('GET /retrieval/article_count HTTP/1.1\r\n\r\n');
    expect(await expectRefusal(none, 400)).toEqual({ detail: { code: 8, detail: 'the request has no Host header' } });
    const twice = await rawAnswer('GET /v1/orgs HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    expect(await expectRefusal(twice, 400)).toMatchObject({ '@type': 'MalformedRequest', reason: 'the request has 2 Host headers; send one' });
    // HTTP/1.0 needs no Host.
    expect((await rawAnswer('GET /retrieval/article_count HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('answers an Expect other than 100-continue 417 as any refusal', async () => {
    const literature = await rawAnswer('GET /retrieval/article_count HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n');
    expect(await expectRefusal(literature, 417)).toEqual({ detail: { code: 8, detail: 'Expect 200-ok is not supported; only 100-continue is' } });
    const platform = await rawAnswer('GET /v1/orgs HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n');
    expect(await expectRefusal(platform, 417)).toMatchObject({ '@type': 'ExpectationFailed' });
  });

  it('answers CONNECT 405 with Allow, then closes', async () => {
    const answer = await rawAnswer('CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n\r\n');
    const body = (await expectRefusal(answer, 405)) as { detail: { code: number } };
    expect(body.detail.code).toBe(14);
    expect(answer.headers['allow']?.split(', ')).toEqual(expect.arrayContaining(['GET', 'HEAD', 'POST']));
  });

  it('refuses a transfer coding other than chunked with 501, on both APIs', async () => {
    const gzipped = 'POST /qa/generative HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nxxxxx\r\n0\r\n\r\n';
    const literature = (await expectRefusal(await rawAnswer(gzipped), 501)) as { detail: { code: number; detail: string } };
    expect(literature.detail).toEqual({ code: 8, detail: expect.stringContaining('Transfer-Encoding gzip, chunked is not supported') });
    const identity = 'PUT /v1/orgs/org HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: identity, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n';
    expect(await expectRefusal(await rawAnswer(identity), 501)).toMatchObject({ '@type': 'NotImplemented', reason: expect.stringContaining('Transfer-Encoding identity, chunked') });
    // Chunked alone is read as before (any case).
    const chunked = 'POST /qa/generative HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n';
    expect((await rawAnswer(chunked)).status).toBe(422);
  });

  it('takes the asterisk-form target for OPTIONS only', async () => {
    const get = await rawAnswer('GET * HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await expectRefusal(get, 400)).toEqual({ detail: { code: 8, detail: 'the target * is only for OPTIONS, not GET' } });
    const options = await rawAnswer('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(options.status).toBe(204);
    expect(options.headers['allow']?.split(', ')).toEqual(expect.arrayContaining(['DELETE', 'GET', 'HEAD', 'POST', 'PUT']));
  });
});
