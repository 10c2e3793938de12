/**
 * A request whose client left before its response was sent (curl gave up while the store was frozen) had left
 * no line at all, even once the handler answered: 'request completed' comes on the response's 'finish', which a
 * departed client never gives. Now one line names it (request id, method, url, how long it had run), whatever the
 * route, and a route that logs the departure itself (QA: "client disconnected; generation stopped") is not doubled.
 */
import { open } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { capturingLogger } from './captured-log.js';
import { abortOnDisconnect } from '../../src/http/disconnect.js';
import type { Generator } from '../../src/llm/types.js';
import { until } from '../until.js';
import { DEFAULT_AUTH, TOKENS, bearer, createProject, multipart } from '../platform/helpers.js';

const DEPARTURE = /client disconnected/;

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Sends a request with the id `requestId` over a real socket, and destroys the socket once `busy()` holds. */
async function sendAndHangUp(requestId: string, method: string, path: string, busy: () => boolean, body = '') {
  await fixture!.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = fixture!.app.server.address() as { port: number };
  const headers = { 'x-request-id': requestId, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) };
  const client = request({ host: '127.0.0.1', port, path, method, headers });
  client.on('error', () => undefined); // we hang up ourselves
  client.end(body);
  await until(busy);
  client.destroy();
}

/** A route held until the test lets it answer, as one waiting on a frozen store. */
function holdRoute(path: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = { started: false, release: () => release() };
  fixture!.app.get(path, async () => {
    held.started = true;
    await released;
    return { answered: true };
  });
  return held;
}

const settle = () => new Promise((r) => setTimeout(r, 200)); // pino writes asynchronously; any later line would have come

describe('a request whose client left before its answer', () => {
  it.each(['/held', '/v1/held'])('%s: one info line with the request id, method, url and time, also once the handler answers', async (path) => {
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, {}, { auth: null, logger });
    const held = holdRoute(path);
    await sendAndHangUp('client-gave-up-1', 'GET', `${path}?q=1`, () => held.started);
    await until(() => lines.some((l) => DEPARTURE.test(l.msg)));
    held.release(); // the store is back: the answer reaches no one
    await settle();
    const logged = lines.filter((l) => l.reqId === 'client-gave-up-1');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 30, msg: 'client disconnected before the response was sent', method: 'GET', url: `${path}?q=1` });
    expect(logged[0]!.responseTime).toEqual(expect.any(Number));
  });

  it('a client leaving part-way through a response is said so, with the status sent', async () => {
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, {}, { auth: null, logger });
    let sending = false;
    fixture.app.get('/slow-download', (_request, reply) => {
      // Headers and a first part sent, the rest never: as a large download read slowly.
      reply.raw.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '1000000' });
      reply.raw.write(Buffer.alloc(1000));
      sending = true;
      return reply.hijack();
    });
    await sendAndHangUp('client-gave-up-midway', 'GET', '/slow-download', () => sending);
    await until(() => lines.some((l) => l.reqId === 'client-gave-up-midway' && DEPARTURE.test(l.msg)));
    const logged = lines.filter((l) => l.reqId === 'client-gave-up-midway');
    // It had said "before the response was sent", of a response whose status and first bytes had gone.
    expect(logged[0]).toMatchObject({ level: 30, msg: 'client disconnected part-way through the response', statusCode: 200, url: '/slow-download' });
  });

  it('an upload whose client ends its side mid-body is one line under its request id, and the connection closes at once', async () => {
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, {}, { auth: DEFAULT_AUTH, logger });
    await createProject(fixture.app, 'org', 'proj');
    await fixture.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fixture.app.server.address() as { port: number };
    const part = '--B\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n' + 'x'.repeat(100_000);
    const head =
      `PUT /v1/files/org/proj/cut-short HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.alice}\r\nx-request-id: upload-cut-short\r\n` +
      'Content-Type: multipart/form-data; boundary=B\r\nContent-Length: 1000000\r\n\r\n';
    // Half of the declared body, then the client's FIN: the parser meets the end of the stream mid-body.
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(head + part);
        setTimeout(() => socket.end(), 200);
      });
      let received = '';
      socket.on('data', (chunk) => (received += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(received));
    });
    // It had been answered a 400 under another id, and logged twice (once "refused by the HTTP parser").
    expect(answer).toBe('');
    await until(() => lines.some((l) => l.reqId === 'upload-cut-short' && DEPARTURE.test(l.msg)));
    await settle();
    expect(lines.filter((l) => /upload-cut-short|cut-short/.test(`${l.reqId} ${l.url ?? ''}`)).map((l) => l.msg)).toEqual(['client disconnected before the response was sent']);
    expect(lines.filter((l) => l.msg === 'request refused by the HTTP parser')).toEqual([]);
    const stored = await fixture.app.inject({ method: 'GET', url: '/v1/files/org/proj/cut-short', headers: { ...bearer(TOKENS.alice), accept: 'application/json' } });
    expect(stored.statusCode).toBe(404);
  });

  it('a file download the server cuts (its content changed on disk) is logged as cut by the server, not as the client leaving', async () => {
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, {}, { auth: DEFAULT_AUTH, logger });
    await createProject(fixture.app, 'org', 'proj');
    const body = await multipart('data.bin', Buffer.alloc(300_000, 7), 'application/octet-stream');
    const stored = await fixture.app.inject({ method: 'PUT', url: '/v1/files/org/proj/f1', headers: { ...bearer(TOKENS.alice), ...body.headers }, payload: body.payload });
    const digest = stored.json()._digest._value as string;
    const content = path.join(fixture.dataDir, 'platform', 'files', 'sha256', digest.slice(0, 2), digest.slice(2, 4), digest);
    const handle = await open(content, 'r+');
    await handle.write(Buffer.from('XXXX'), 0, 4, 1000);
    await handle.close();
    await fixture.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fixture.app.server.address() as { port: number };
    await new Promise<void>((resolve) => {
      const client = request({ host: '127.0.0.1', port, path: '/v1/files/org/proj/f1', headers: { ...bearer(TOKENS.alice), 'x-request-id': 'cut-by-server' } }, (response) => {
        response.resume();
        response.once('close', () => resolve());
      });
      client.on('error', () => resolve());
      client.end();
    });
    await until(() => lines.some((l) => l.reqId === 'cut-by-server' && /cut|disconnected/.test(l.msg)));
    await settle();
    const said = lines.filter((l) => l.reqId === 'cut-by-server').map((l) => l.msg);
    expect(said).toContain('response cut by the server after its first bytes (its error is logged above)');
    expect(said.filter((msg) => DEPARTURE.test(msg))).toEqual([]);
  });

  it('a question whose generation stops logs its own line only, with the same fields', async () => {
    const stalling: Generator = {
      kind: 'llama',
      description: 'stalls until aborted',
      generate: (_question, _contexts, options = {}) => new Promise((_resolve, reject) => options.signal?.addEventListener('abort', () => reject(options.signal!.reason))),
      close: async () => {},
    };
    let started = false;
    const generator: Generator = { ...stalling, generate: (...args) => ((started = true), stalling.generate(...args)) };
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, { generator: () => generator }, { logger });
    await sendAndHangUp('client-gave-up-2', 'POST', '/qa/generative', () => started, JSON.stringify({ query: 'Which cells fire in CA1?' }));
    await until(() => lines.some((l) => DEPARTURE.test(l.msg)));
    await settle();
    const logged = lines.filter((l) => l.reqId === 'client-gave-up-2');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 30, msg: 'client disconnected; generation stopped', method: 'POST', url: '/qa/generative' });
    expect(logged[0]!.responseTime).toEqual(expect.any(Number));
  });

  it('a route that stops its work on the departure but answers anyway (past stopping) is logged once, when it answers', async () => {
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, {}, { logger });
    let started = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    fixture.app.get('/past-stopping', async (_request, reply) => {
      abortOnDisconnect(reply); // as an archive creation whose turn has come: the signal no longer stops it
      started = true;
      await released;
      return { answered: true };
    });
    await sendAndHangUp('client-gave-up-3', 'GET', '/past-stopping', () => started);
    await settle();
    expect(lines.filter((l) => l.reqId === 'client-gave-up-3')).toEqual([]); // the route was to log it
    release();
    await until(() => lines.some((l) => DEPARTURE.test(l.msg)));
    await settle();
    const logged = lines.filter((l) => l.reqId === 'client-gave-up-3');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 30, msg: 'client disconnected before the response was sent', method: 'GET', url: '/past-stopping' });
  });

  it('a question whose body its client cut short is one line', async () => {
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, {}, { logger });
    await fixture.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fixture.app.server.address() as { port: number };
    const headers = { 'x-request-id': 'cut-4', 'content-type': 'application/json', 'content-length': 1000 };
    const client = request({ host: '127.0.0.1', port, path: '/qa/generative', method: 'POST', headers });
    client.on('error', () => undefined);
    client.write('{"query": "Which');
    await new Promise((r) => setTimeout(r, 100));
    client.destroy();
    await until(() => lines.some((l) => DEPARTURE.test(l.msg)));
    await settle();
    const logged = lines.filter((l) => l.reqId === 'cut-4');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 30, msg: 'client disconnected before the response was sent', method: 'POST', url: '/qa/generative' });
  });

  it('a request answered in full logs no departure', async () => {
    const { lines, logger } = capturingLogger();
    fixture = await fixtureApp(undefined, {}, { logger });
    await fixture.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fixture.app.server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}/retrieval/article_count`, { headers: { 'x-request-id': 'answered-5' } });
    await response.text();
    await settle();
    expect(lines.filter((l) => l.reqId === 'answered-5').map((l) => l.msg)).toEqual(['request completed']);
  });
});
