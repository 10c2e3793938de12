/**
 * Bounded concurrency: beyond `maxInFlight` requests being served at once,
 * new ones are answered 503 with Retry-After at once, so an overloaded server
 * degrades into fast refusals instead of a queue that grows without bound
 * (and timeouts for everyone). The health routes are never refused.
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
  app.addHook('onRequest', async (request, reply) => {
    if (isHealthProbe(request.url)) return;
    if (inFlight >= maxInFlight) {
      reply.header('retry-after', '1');
      throw new OverloadedError(maxInFlight);
    }
    inFlight++;
    // The response's 'close' comes once for every request: sent, or cut by a client that left. Neither
    // onResponse nor onRequestAbort would do: a handler that answers a departed client nothing (or took
    // the reply over) gets no onResponse, and Fastify sees no abort once the body was read.
    reply.raw.once('close', () => inFlight--);
  });
}
