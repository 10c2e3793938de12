/**
 * What one client can hold of the server, over real sockets: a slot of --max-in-flight while it
 * sends a body slowly or after it has gone, a connection while it leaves a response unread, and
 * connections by the thousand. Each bound found by an attacker round.
 */
import { readFileSync } from 'node:fs';
import { createServer, get as httpGet, type IncomingHttpHeaders, type Server } from 'node:http';
import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { limitConnections } from '../../src/http/connection-limits.js';
import { type InFlightLimits, shedLoad } from '../../src/http/load-shedding.js';
import { cutStalledResponses } from '../../src/http/send-stall.js';
import { abortOnDisconnect } from '../../src/http/disconnect.js';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { until } from '../until.js';

const silentLog = Fastify().log;
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
    cleanups.push(() => void socket.destroy());
  });
}

function connectFrom(port: number, localAddress: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.once('error', reject);
    cleanups.push(() => void socket.destroy());
  });
}

/** A GET sent from `localAddress` (any of 127.0.0.0/8 on Linux), on its own connection. */
function get(port: number, path: string, localAddress: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = httpGet({ host: '127.0.0.1', port, path, localAddress, agent: false }, (response) => {
      response.resume();
      response.once('end', () => resolve({ status: response.statusCode!, headers: response.headers }));
    });
    request.once('error', reject);
  });
}

/** Resolves when the server has closed the socket (true), or after `ms` with it still open (false). */
function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  if (socket.closed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const closed = () => (clearTimeout(timer), resolve(true));
    socket.once('close', closed);
    socket.once('end', closed);
    socket.once('error', closed);
  });
}

/** The first line the server sends on `socket`. */
function statusLine(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n')) resolve(text.split('\r\n')[0]!);
    });
  });
}

async function listening(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  return (app.server.address() as net.AddressInfo).port;
}

describe('slots of --max-in-flight', () => {
  let fixture: Fixture;
  const fixtureServer = async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--max-in-flight', '1'] });
    cleanups.push(() => fixture.close());
    return listening(fixture.app);
  };

  it('a body sent slowly holds no slot, to a real route or to none; an unrouted one is answered and closed at once', async () => {
    const port = await fixtureServer();
    const slow = await connect(port);
    slow.write('POST /qa/generative HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query"');
    const unrouted = await connect(port);
    const unroutedAnswer = statusLine(unrouted);
    unrouted.write('POST /no-such-route HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    expect(await unroutedAnswer).toBe('HTTP/1.1 404 Not Found');
    expect(await closedWithin(unrouted, 5000)).toBe(true);
    // Both bodies still unfinished: the one slot is free.
    const response = await fetch(`http://127.0.0.1:${port}/retrieval/article_count`);
    expect(response.status).toBe(200);
  });

  /**
   * An app shedding load by `limits`, whose /held answers when the test says so (`waiting`), /quick at once and /echo
   * with its JSON body. `held(from)` holds a /held request sent from `from`; `heldClosed()` counts the /held responses
   * closed, by a 'close' listener added after the one that gives the slot back: once it counts, the slot is back.
   */
  const sheddingApp = async (limits: InFlightLimits) => {
    const app = Fastify();
    shedLoad(app, limits);
    const waiting: (() => void)[] = [];
    let heldClosed = 0;
    app.get('/held', (_request, reply) => {
      reply.raw.once('close', () => heldClosed++);
      return new Promise((resolve) => waiting.push(() => resolve('done')));
    });
    app.get('/quick', async () => 'ok');
    app.post('/echo', async (request) => request.body);
    const port = await listening(app);
    cleanups.push(() => waiting.splice(0).forEach((finish) => finish()));
    const held = async (from: string) => {
      const before = waiting.length;
      const socket = await connectFrom(port, from);
      socket.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(() => waiting.length > before);
      return socket;
    };
    return { port, waiting, held, heldClosed: () => heldClosed };
  };

  it('one address holds at most its share while others are served; the share comes back after answers and after departures', async () => {
    const { port, waiting, held, heldClosed } = await sheddingApp({ total: 10, perClient: 2 });
    const first = await held('127.0.0.2');
    const second = await held('127.0.0.2');
    const refused = await get(port, '/quick', '127.0.0.2');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect((await get(port, '/quick', '127.0.0.3')).status).toBe(200);

    // An answer sent gives its place back.
    const answered = statusLine(first);
    waiting.shift()!();
    expect(await answered).toBe('HTTP/1.1 200 OK');
    await until(() => heldClosed() === 1);
    expect((await get(port, '/quick', '127.0.0.2')).status).toBe(200);
    // So does a client that leaves before its answer: then the address has exactly its share again, no more.
    second.destroy();
    await until(() => heldClosed() === 2);
    await held('127.0.0.2');
    await held('127.0.0.2');
    expect((await get(port, '/quick', '127.0.0.2')).status).toBe(503);
  });

  it('a request refused before its body is read gives back no slot: the one freed is taken exactly once again', async () => {
    const { port, waiting, held, heldClosed } = await sheddingApp({ total: 1, perClient: 0 });
    await held('127.0.0.1');
    // Refused with their bodies unfinished (nothing would read them): one whose client stays, one whose client leaves
    // before its answer, one whose client leaves after it.
    const refusals = [];
    for (let i = 0; i < 3; i++) {
      const refused = await connect(port);
      refusals.push({ socket: refused, answer: statusLine(refused) });
      refused.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a": ');
    }
    refusals[1]!.socket.destroy();
    expect(await refusals[0]!.answer).toBe('HTTP/1.1 503 Service Unavailable');
    expect(await refusals[2]!.answer).toBe('HTTP/1.1 503 Service Unavailable');
    refusals[2]!.socket.destroy();

    waiting.shift()!();
    await until(() => heldClosed() === 1);
    // One slot, not more: the refusals gave back nothing they had not taken.
    await held('127.0.0.1');
    expect((await get(port, '/quick', '127.0.0.1')).status).toBe(503);
    waiting.shift()!();
    await until(() => heldClosed() === 2);
    const echoed = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await echoed.json()).toEqual({ a: 1 });
  });

  it('a client gone while an earlier hook waited does not keep its slot', async () => {
    const app = Fastify();
    // Read while the client is still there, as the rate limit does: a share wrongly kept for the departed client then
    // counts against the address the next request comes from.
    app.addHook('onRequest', async (request) => void request.ip);
    // A hook that takes its time, as authentication does before the body is read: the client leaves meanwhile.
    app.addHook('preParsing', async (_request, _reply, payload) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return payload;
    });
    shedLoad(app, { total: 1, perClient: 1 });
    app.get('/counted', async () => 'ok');
    const port = await listening(app);
    for (let i = 0; i < 3; i++) {
      const leaving = await connect(port);
      leaving.write('GET /counted HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 50));
      leaving.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const response = await fetch(`http://127.0.0.1:${port}/counted`);
    expect(response.status).toBe(200);
  });
});

describe('requests no route takes', () => {
  it('keep their connection when they declare an empty body: only a body still to come is refused by closing', async () => {
    const fixture = await fixtureApp(undefined, {}, { auth: null });
    cleanups.push(() => fixture.close());
    const port = await listening(fixture.app);
    const socket = await connect(port);
    const received = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.once('close', () => resolve(text));
    });
    // Two on one connection, the second asking to close: both are answered if the first kept it.
    socket.write('POST /no-such-route HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
    socket.write('GET /no-such-route HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect((await received).match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 404', 'HTTP/1.1 404']);
  });
});

describe('requests pipelined behind one still being answered, when the connection closes', () => {
  /** An app whose /held answers when the test says so, and whose /quick answers at once, counting its calls. */
  const pipeliningApp = async (register: (app: FastifyInstance) => void) => {
    const app = Fastify();
    register(app);
    const waiting: (() => void)[] = [];
    const calls = { quick: 0 };
    app.get('/held', () => new Promise((resolve) => waiting.push(() => resolve('done'))));
    app.get('/quick', async () => (calls.quick++, 'ok'));
    const port = await listening(app);
    cleanups.push(() => waiting.splice(0).forEach((finish) => finish()));
    return { port, waiting, calls };
  };

  it('give their slots back (a response queued behind another gets no close of its own)', async () => {
    const { port, waiting, calls } = await pipeliningApp((app) => shedLoad(app, { total: 2, perClient: 0 }));
    const leaving = await connect(port);
    // /held and the first /quick take the two slots; the other two are refused; all four answers wait behind /held.
    leaving.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n' + 'GET /quick HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(3));
    await until(() => waiting.length === 1 && calls.quick === 1);
    leaving.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Both slots are free: one held again, and another request still served.
    const holding = await connect(port);
    holding.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => waiting.length === 2);
    expect((await fetch(`http://127.0.0.1:${port}/quick`)).status).toBe(200);
  });

  it('abort the work done for them', async () => {
    const aborted: string[] = [];
    const { port, waiting } = await pipeliningApp((app) =>
      app.get('/work', (_request, reply) => {
        const { signal } = abortOnDisconnect(reply);
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(aborted.push('work'))));
      }),
    );
    const leaving = await connect(port);
    leaving.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n' + 'GET /work HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => waiting.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    leaving.destroy();
    await until(() => aborted.length === 1);
  });
});

describe('responses left unread', () => {
  const BIG = Buffer.alloc(96 * 1024 * 1024, 'x');
  const stallingApp = async (stallMs: number) => {
    const app = Fastify();
    cutStalledResponses(app, stallMs);
    app.get('/big', async (_request, reply) => reply.type('application/octet-stream').send(BIG));
    // A route that takes its reply over (as downloads and streamed answers do) skips onSend: it is watched all the same.
    app.get('/taken-over', async (_request, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-length': BIG.length });
      reply.raw.end(BIG);
    });
    app.get('/slow-to-compute', async () => new Promise((resolve) => setTimeout(() => resolve('computed'), 2500)));
    app.get('/small', async () => 'small');
    return listening(app);
  };

  /** Reads what is left of the response (the connection is kept alive once it is whole): the bytes read, and whether the server cut it. */
  const readRest = (socket: net.Socket, alreadyRead = 0): Promise<{ bytes: number; cut: boolean }> =>
    new Promise((resolve) => {
      let bytes = alreadyRead;
      const done = (cut: boolean) => resolve({ bytes, cut });
      socket.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > BIG.length) setTimeout(() => done(socket.destroyed || socket.readableEnded), 200);
      });
      socket.once('end', () => done(true));
      socket.once('error', () => done(true));
      socket.resume();
    });

  for (const path of ['/big', '/taken-over']) {
    it(`a client that reads nothing of ${path} is cut after the stall time`, async () => {
      const port = await stallingApp(1000);
      const reader = await connect(port);
      reader.pause();
      reader.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const { bytes, cut } = await readRest(reader);
      expect(cut).toBe(true);
      expect(bytes).toBeLessThan(BIG.length);
    });
  }

  it('a response pipelined behind an answered one, read by nobody, is cut after the stall time', async () => {
    const port = await stallingApp(1000);
    const reader = await connect(port);
    reader.pause();
    reader.write('GET /small HTTP/1.1\r\nHost: x\r\n\r\nGET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const { bytes, cut } = await readRest(reader);
    expect(cut).toBe(true);
    expect(bytes).toBeLessThan(BIG.length);
  });

  it('a slow but steady reader, and a response slow to compute, are not cut', async () => {
    const port = await stallingApp(1000);
    const computing = await fetch(`http://127.0.0.1:${port}/slow-to-compute`);
    expect(await computing.text()).toBe('computed');
    const reader = await connect(port);
    reader.pause();
    reader.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    // 4 MiB every 250 ms for 3 s: far slower than the socket could go, never stopped for the stall time. (Progress is
    // seen as the kernel's buffers drain, a few MiB on loopback, so a reader must take that much within the stall time.)
    let received = 0;
    let quota = 0;
    const counting = (chunk: Buffer) => {
      received += chunk.length;
      if (received >= quota) reader.pause();
    };
    reader.on('data', counting);
    for (let step = 1; step <= 12; step++) {
      quota = step * 4 * 1024 * 1024;
      reader.resume();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    reader.off('data', counting);
    reader.pause();
    expect(received).toBeLessThan(BIG.length);
    const { bytes, cut } = await readRest(reader, received);
    expect(cut).toBe(false);
    expect(bytes).toBeGreaterThan(BIG.length);
  });
});

describe('connections', () => {
  const plainServer = async (limits: { total: number | null; perClient: number }): Promise<{ server: Server; port: number }> => {
    const server = createServer((_request, response) => response.end('ok'));
    limitConnections(server, limits, silentLog);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
    return { server, port: (server.address() as net.AddressInfo).port };
  };

  it('one address holds at most --max-connections-per-client; a place freed is taken again', async () => {
    const { port } = await plainServer({ total: null, perClient: 3 });
    const sockets = [];
    for (let i = 0; i < 5; i++) sockets.push(await connect(port));
    const closed = await Promise.all(sockets.map((socket) => closedWithin(socket, 1000)));
    expect(closed).toEqual([false, false, false, true, true]);
    sockets[0]!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await connect(port);
    expect(await closedWithin(again, 500)).toBe(false);
  });

  it('the server takes both limits from its settings', async () => {
    const fixture = await fixtureApp(undefined, {}, { flags: ['--max-connections', '5', '--max-connections-per-client', '2'] });
    cleanups.push(() => fixture.close());
    const port = await listening(fixture.app);
    expect(fixture.app.server.maxConnections).toBe(5);
    const sockets = [];
    for (let i = 0; i < 3; i++) sockets.push(await connect(port));
    expect(await Promise.all(sockets.map((socket) => closedWithin(socket, 1000)))).toEqual([false, false, true]);
  });

  it('at most --max-connections in all, by default 80% of the open-file limit', async () => {
    const { port } = await plainServer({ total: 2, perClient: 0 });
    const sockets = [];
    for (let i = 0; i < 3; i++) sockets.push(await connect(port));
    expect(await Promise.all(sockets.map((socket) => closedWithin(socket, 1000)))).toEqual([false, false, true]);
    const soft = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    const { server } = await plainServer({ total: null, perClient: 0 });
    expect(server.maxConnections).toBe(Math.floor(Number(soft) * 0.8));
  });
});
