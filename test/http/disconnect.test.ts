/**
 * abortOnDisconnect tells a handler its client has gone, also when the client left before the handler
 * asked: the response's 'close' had already come, so a listener added then never fired and the work
 * (an archive creation, a reranking) ran for nobody.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { abortOnDisconnect } from '../../src/http/disconnect.js';

let app: FastifyInstance;
beforeEach(() => {
  app = Fastify();
});
afterEach(() => app.close());

/** Sends a request and hangs up after `hangUpMs`. */
function requestThenHangUp(port: number, path: string, hangUpMs: number): void {
  const request = http.get({ host: '127.0.0.1', port, path });
  request.on('error', () => undefined);
  setTimeout(() => request.destroy(), hangUpMs);
}

describe('abortOnDisconnect', () => {
  test('aborts at once for a client gone before the handler asked, and not for one still there', async () => {
    const seen: Record<string, boolean> = {};
    let clientGone!: () => void;
    const gone = new Promise<void>((resolve) => (clientGone = resolve));
    app.get('/late', async (request, reply) => {
      // The handler asks only after the client has left, as one behind a slow hook would.
      await new Promise<void>((resolve) => request.raw.socket.once('close', () => setImmediate(resolve)));
      seen.late = abortOnDisconnect(reply).signal.aborted;
      clientGone();
      return reply.hijack();
    });
    app.get('/present', async (_request, reply) => {
      seen.present = abortOnDisconnect(reply).signal.aborted;
      return 'here';
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;

    requestThenHangUp(port, '/late', 100);
    await gone;
    expect(seen.late).toBe(true);

    const answered = await fetch(`http://127.0.0.1:${port}/present`);
    expect(await answered.text()).toBe('here');
    expect(seen.present).toBe(false);
  });

  test('aborts when the client leaves while the handler works', async () => {
    let signal!: AbortSignal;
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    app.get('/slow', async (_request, reply) => {
      signal = abortOnDisconnect(reply).signal;
      started();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      return reply.hijack();
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    requestThenHangUp(port, '/slow', 100);
    await handlerStarted;
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    expect((signal.reason as Error).message).toBe('client disconnected');
  });
});
