/**
 * x-request-id: a client's own id is taken only when short and of safe characters, else one is
 * generated; the raw answers to requests the HTTP parser refuses carry one too, and leave a log line.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { capturingLogger } from './captured-log.js';
import { rawExchange } from './raw-exchange.js';

const { lines, logger } = capturingLogger();
let fixture: Fixture;
let port: number;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { logger });
  await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  port = (fixture.app.server.address() as net.AddressInfo).port;
});
afterAll(() => fixture.close());

const GENERATED = /^[0-9a-f]{32}$/;
const idOf = async (requestId: string) =>
  (await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count', headers: { 'x-request-id': requestId } })).headers['x-request-id'];

/** Sends raw bytes; the head of the answer, up to the server closing the connection. */
async function rawAnswer(request: string): Promise<string> {
  return (await rawExchange(port, request)).text;
}

describe('request ids', () => {
  it("echoes a client's short id of safe characters", async () => {
    for (const id of ['abc-123', 'trace:01HZ.span_7', 'x'.repeat(128)]) expect(await idOf(id)).toBe(id);
  });

  it('replaces a long id or one with other characters by a generated one', async () => {
    for (const id of ['x'.repeat(129), 'x'.repeat(16_000), 'a b', 'id"quoted', 'ünïcode', 'a/b']) expect(await idOf(id)).toMatch(GENERATED);
  });

  it('gives the answer to a URL the router cannot decode an id', async () => {
    for (const url of ['/retrieval/%zz', '/v1/orgs/%zz']) {
      const answer = await fixture.app.inject({ method: 'GET', url, headers: { 'x-request-id': 'trace-7' } });
      expect([url, answer.statusCode, answer.headers['x-request-id']]).toEqual([url, 400, 'trace-7']);
    }
  });

  it("logs each request's client address with its id, status and time", async () => {
    await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count', headers: { 'x-request-id': 'client-line' }, remoteAddress: '192.0.2.7' });
    await new Promise((r) => setTimeout(r, 50)); // pino writes asynchronously
    expect(lines.filter((line) => line.reqId === 'client-line')).toEqual([
      expect.objectContaining({ msg: 'request completed', method: 'GET', statusCode: 200, client: '192.0.2.7' }),
    ]);
  });

  it('gives the raw answer to a malformed request an id, and logs a line under it', async () => {
    const answer = await rawAnswer('GET /retrieval/article_count HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const id = /\r\nx-request-id: ([0-9a-f]+)\r\n/i.exec(answer)?.[1];
    expect(id).toMatch(GENERATED);
    await new Promise((r) => setTimeout(r, 50)); // pino writes asynchronously
    expect(lines.filter((line) => line.reqId === id)).toEqual([expect.objectContaining({ level: 30, statusCode: 400, msg: 'request refused by the HTTP parser' })]);
  });

  it('tells a client sending non-ASCII letters in a URL as they are to percent-encode them, and logs the URL as sent', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      // As curl sends what a shell gives it: UTF-8 bytes, not escapes.
      socket.write(Buffer.from('GET /suggestions/author?name=Núñez HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8'));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('percent-encode it (é as %C3%A9, a space as %20)');
    const id = /\r\nx-request-id: ([0-9a-f]+)\r\n/i.exec(answer)?.[1];
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.filter((line) => line.reqId === id)).toEqual([expect.objectContaining({ url: '/suggestions/author?name=Núñez', code: 'HPE_INVALID_URL' })]);
  });
});
