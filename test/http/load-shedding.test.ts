/**
 * Beyond --max-in-flight requests at once, or one address's --max-in-flight-per-client share of them, the server
 * refuses at once with 503 and Retry-After, before the request's body is read, and recovers.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { inFlightPerClient } from '../../src/config.js';
import { fixtureApp, settingsWith, type Fixture } from './app-fixture.js';
import { heldGenerator } from './held-generator.js';
import { shedLoad } from '../../src/http/load-shedding.js';

const QUESTION = { query: 'place cells CA1', use_reranker: false };
let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

describe('load shedding', () => {
  it('answers 503 in both vocabularies while the limit is reached, keeps / open, and serves again afterwards', async () => {
    const held = heldGenerator();
    fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--max-in-flight', '1'] });
    const slow = fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'place cells CA1', use_reranker: false } });
    await held.started;

    const refused = await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count' });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json().detail.code).toBe(13);
    const refusedV1 = await fixture.app.inject({ method: 'GET', url: '/v1/orgs/literature' });
    expect(refusedV1.statusCode).toBe(503);
    expect(refusedV1.json()['@type']).toBe('ServiceUnavailable');
    expect((await fixture.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);

    held.release();
    expect((await slow).statusCode).toBe(200);
    expect((await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count' })).statusCode).toBe(200);
  });

  it('refuses one address past its share (by default half of --max-in-flight) in both vocabularies, while other addresses are served', async () => {
    const held = heldGenerator();
    fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--max-in-flight', '2'] });
    const { app } = fixture;
    const slow = app.inject({ method: 'POST', url: '/qa/generative', payload: QUESTION, remoteAddress: '192.0.2.1' });
    await held.started;

    const refused = await app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress: '192.0.2.1' });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json().detail).toMatchObject({ code: 13, detail: expect.stringContaining('--max-in-flight-per-client') });
    const refusedV1 = await app.inject({ method: 'GET', url: '/v1/orgs/literature', remoteAddress: '192.0.2.1' });
    expect(refusedV1.statusCode).toBe(503);
    expect(refusedV1.headers['retry-after']).toBe('1');
    expect(refusedV1.json()['@type']).toBe('ServiceUnavailable');
    expect((await app.inject({ method: 'GET', url: '/', remoteAddress: '192.0.2.1' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress: '192.0.2.2' })).statusCode).toBe(200);

    held.release();
    expect((await slow).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress: '192.0.2.1' })).statusCode).toBe(200);
  });

  for (const share of ['2', '0']) {
    it(`takes --max-in-flight-per-client ${share} from its settings (0 = no share)`, async () => {
      const held = heldGenerator();
      fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--max-in-flight', '2', '--max-in-flight-per-client', share] });
      const slow = fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: QUESTION, remoteAddress: '192.0.2.1' });
      await held.started;
      expect((await fixture.app.inject({ method: 'GET', url: '/retrieval/article_count', remoteAddress: '192.0.2.1' })).statusCode).toBe(200);
      held.release();
      expect((await slow).statusCode).toBe(200);
    });
  }

  it('shows in /settings the share in force: half of --max-in-flight when none is set, else the one set', async () => {
    expect(await settingsWith(['--max-in-flight', '10'])).toMatchObject({ maxInFlight: 10, maxInFlightPerClient: 5 });
    expect(await settingsWith(['--max-in-flight', '0'])).toMatchObject({ maxInFlight: 0, maxInFlightPerClient: 0 });
    expect(await settingsWith(['--max-in-flight', '10', '--max-in-flight-per-client', '3'])).toMatchObject({ maxInFlightPerClient: 3 });
  });

  it('shares half of --max-in-flight by default, at least one slot, none when it is off', () => {
    expect([1, 2, 3, 4, 256, 0].map((maxInFlight) => inFlightPerClient({ maxInFlight, maxInFlightPerClient: null }))).toEqual([1, 1, 1, 2, 128, 0]);
    expect(inFlightPerClient({ maxInFlight: 256, maxInFlightPerClient: 7 })).toBe(7);
  });
});

/** What the server sent on a new connection given `sent`, until it closed its side (or 5 s passed): status line, headers, whether it closed. */
function answerTo(port: number, sent: string): Promise<{ lines: string[]; headers: Record<string, string>; closed: boolean }> {
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(sent));
    const finish = (closed: boolean) => {
      clearTimeout(giveUp);
      socket.destroy();
      const heads = received.split('\r\n\r\n').filter((head) => head.startsWith('HTTP/1.1 '));
      const [statusLine, ...headerLines] = (heads.at(-1) ?? '').split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ lines: heads.map((head) => head.split('\r\n')[0]!), headers: { status: statusLine ?? '', ...headers }, closed });
    };
    const giveUp = setTimeout(() => finish(false), 5000);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.once('end', () => finish(true));
    socket.once('error', () => finish(true));
  });
}

describe('load shedding before the body', () => {
  const head = (method: string, url: string, headers: Record<string, string | number>) =>
    `${method} ${url} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`;

  it('a request refused 503 gets it without a 100 Continue, or before its body has arrived, and its connection is closed', async () => {
    const held = heldGenerator();
    fixture = await fixtureApp(undefined, { generator: () => held.generator }, { auth: null, flags: ['--max-in-flight', '1'] });
    const { app } = fixture;
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as net.AddressInfo).port;
    const slow = app.inject({ method: 'POST', url: '/qa/generative', payload: QUESTION });
    await held.started;

    // The body is sent only after a 100, which never comes: the 503 comes instead, in each API's vocabulary (a /v1 write
    // refused before its permission is checked), and the connection is closed.
    const body = JSON.stringify(QUESTION);
    for (const [method, url] of [['POST', '/qa/generative'], ['PUT', '/v1/orgs/neworg']] as const) {
      const refused = await answerTo(port, head(method, url, { 'Content-Length': Buffer.byteLength(body), Expect: '100-continue' }));
      expect({ url, lines: refused.lines, retryAfter: refused.headers['retry-after'], connection: refused.headers.connection?.toLowerCase() }).toEqual({
        url,
        lines: ['HTTP/1.1 503 Service Unavailable'],
        retryAfter: '1',
        connection: 'close',
      });
      expect(refused.closed).toBe(true);
    }
    // Without Expect, a body still arriving: answered at once, not once a megabyte has been read, and closed (the server
    // ends its side; the rest of the body would be read and dropped until the client closes, lingering-close.ts).
    const started = await answerTo(port, head('POST', '/qa/generative', { 'Content-Length': 1_000_000 }) + '{"query": "place');
    expect({ lines: started.lines, connection: started.headers.connection, closed: started.closed }).toEqual({
      lines: ['HTTP/1.1 503 Service Unavailable'],
      connection: 'close',
      closed: true,
    });
    // A path no route takes is still answered as such.
    expect((await answerTo(port, head('POST', '/no-such-route', { 'Content-Length': 2, Expect: '100-continue' }))).lines).toEqual(['HTTP/1.1 404 Not Found']);

    held.release();
    expect((await slow).statusCode).toBe(200);
    const served = await answerTo(port, head('POST', '/qa/generative', { 'Content-Length': Buffer.byteLength(body), Connection: 'close' }) + body);
    expect(served.lines).toEqual(['HTTP/1.1 200 OK']);
  });
});

describe('load shedding as the first hook', () => {
  it('keeps the connection of a request without a body: Node marks no request complete before its hooks run', async () => {
    const app = Fastify({ logger: false });
    shedLoad(app, { total: 1, perClient: 0 });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    app.get('/held', async () => {
      await held;
      return 'done';
    });
    app.get('/other', async () => 'other');
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as net.AddressInfo).port;
      const holding = fetch(`http://127.0.0.1:${port}/held`);
      // Wait until the held request holds the slot.
      while ((await fetch(`http://127.0.0.1:${port}/other`)).status !== 503);
      // Two refused GETs on one connection, the second asking to close: both answered if the first kept it.
      const request = (connection: string) => `GET /other HTTP/1.1\r\nHost: localhost\r\nConnection: ${connection}\r\n\r\n`;
      const received = await new Promise<string>((resolve) => {
        let text = '';
        const socket = net.connect(port, '127.0.0.1', () => socket.write(request('keep-alive') + request('close')));
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.once('close', () => resolve(text));
      });
      expect(received.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 503', 'HTTP/1.1 503']);
      release();
      expect((await holding).status).toBe(200);
    } finally {
      release();
      await app.close();
    }
  });
});
