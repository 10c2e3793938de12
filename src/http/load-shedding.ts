/**
 * Bounded concurrency: beyond `maxInFlight` requests being served at once,
 * new ones are answered 503 with Retry-After at once, so an overloaded server
 * degrades into fast refusals instead of a queue that grows without bound
 * (and timeouts for everyone). The health routes are never refused.
 *
 * A request is counted once it is ready for its handler (preHandler), its body read: a JSON body is
 * at most 1 MiB and costs nothing to wait for, and counted from the first byte, bodies sent a byte a
 * second (8 of them, even without credentials) had held every slot. Uploads stream in their handler,
 * so they count while they are received.
 */
import type { FastifyInstance } from 'fastify';
import { isHealthProbe } from './literature/health-and-settings.js';

export class OverloadedError extends Error {
  readonly statusCode = 503;
  constructor(limit: number) {
    super(`server busy: ${limit} requests in progress; retry shortly`);
  }
}

export function shedLoad(app: FastifyInstance, maxInFlight: number): void {
  if (maxInFlight <= 0) return;
  let inFlight = 0;
  app.addHook('preHandler', async (request, reply) => {
    if (isHealthProbe(request.url)) return;
    if (inFlight >= maxInFlight) {
      reply.header('retry-after', '1');
      throw new OverloadedError(maxInFlight);
    }
    // A client gone while an earlier hook waited (authentication, the body) has had its 'close' already:
    // counted now, its slot would never be given back.
    if (reply.raw.destroyed) return;
    inFlight++;
    // The response's 'close' comes once for every request: sent, or cut by a client that left. Neither
    // onResponse nor onRequestAbort would do: a handler that answers a departed client nothing (or took
    // the reply over) gets no onResponse, and Fastify sees no abort once the body was read.
    reply.raw.once('close', () => inFlight--);
  });
}
