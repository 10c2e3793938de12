/**
 * Bounded concurrency: beyond `total` requests being served at once, new ones are answered 503
 * with Retry-After at once, so an overloaded server degrades into fast refusals instead of a queue
 * that grows without bound (and timeouts for everyone). The health routes are never refused.
 *
 * One caller (its address, request.ip: the client's own behind a proxy --trust-proxy names; an IPv6
 * address counts as its /64, see clientKey) holds at most `perClient` of those slots: a few clients
 * holding many slow responses each had taken every slot, and every other client got 503. By default
 * half of the total: one client with many connections (a benchmark) still has half of an idle server,
 * and the other half is always left to other callers.
 *
 * A request is counted once it is ready for its handler (preHandler), its body read: a JSON body is
 * at most 1 MiB and costs nothing to wait for, and counted from the first byte, bodies sent a byte a
 * second (8 of them, even without credentials) had held every slot. Uploads stream in their handler,
 * so they count while they are received.
 */
import type { FastifyInstance } from 'fastify';
import { isHealthProbe } from './literature/health-and-settings.js';
import { whenRequestEnds } from './request-end.js';
import { clientKey } from './client-address.js';

export interface InFlightLimits {
  /** Requests served at once; 0 = no limit. */
  total: number;
  /** Requests one address may have served at once; 0 = no limit. */
  perClient: number;
}

export class OverloadedError extends Error {
  readonly statusCode = 503;
}

export function shedLoad(app: FastifyInstance, limits: InFlightLimits): void {
  const { total, perClient } = limits;
  if (total <= 0 && perClient <= 0) return;
  let inFlight = 0;
  // Only addresses with a request in flight: an entry goes when its count reaches 0, so the map
  // stays as small as the number of callers being served.
  const heldByAddress = new Map<string, number>();
  const release = (address: string) => {
    inFlight--;
    const left = heldByAddress.get(address)! - 1;
    if (left === 0) heldByAddress.delete(address);
    else heldByAddress.set(address, left);
  };
  app.addHook('preHandler', async (request, reply) => {
    if (isHealthProbe(request.url)) return;
    // Read once: the same key must be given back, whatever the socket says once it is gone.
    const address = clientKey(request.ip);
    const held = heldByAddress.get(address) ?? 0;
    if (perClient > 0 && held >= perClient) {
      reply.header('retry-after', '1');
      throw new OverloadedError(`server busy: this client already has as many requests in progress as it may (--max-in-flight-per-client: ${perClient}); retry shortly`);
    }
    if (total > 0 && inFlight >= total) {
      reply.header('retry-after', '1');
      throw new OverloadedError(`server busy: ${total} requests in progress; retry shortly`);
    }
    // Given back when the request ends (whenRequestEnds). Neither onResponse nor onRequestAbort would do: a
    // handler that answers a departed client nothing (or took the reply over) gets no onResponse, and Fastify
    // sees no abort once the body was read. A client gone while an earlier hook waited (authentication, the
    // body) is not counted: its end has come already and would not come again.
    if (!whenRequestEnds(request, reply, () => release(address))) return;
    inFlight++;
    heldByAddress.set(address, held + 1);
  });
}
