/**
 * Bounded concurrency: beyond `total` requests being served at once, new ones are answered 503
 * with Retry-After at once, so an overloaded server degrades into fast refusals instead of a queue
 * that grows without bound (and timeouts for everyone). The health routes are never refused.
 *
 * One caller (its address, request.ip: the client's own behind a proxy --trust-proxy names; an IPv6
 * address counts as its /64, see clientKey) holds at most `perClient` of those slots, so that a few clients
 * holding many slow responses each cannot take every slot and leave every other client a 503. By default
 * half of the total: one client with many connections (a benchmark) still has half of an idle server,
 * and the other half is always left to other callers.
 *
 * A request is refused as soon as its route is known (onRequest), before its body is read: refused once
 * its JSON body is read, a caller sending `Expect: 100-continue` would be invited to upload it (expect-continue.ts)
 * only to be told the server is busy, and every refusal would cost a body read. It is counted only once it is
 * ready for its handler (preHandler), its body read, and checked again then, as the slots may have filled
 * meanwhile: counted from the first byte, bodies sent a byte a second (8 of them, even without credentials)
 * would hold every slot. Uploads stream in their handler, so they count while they are received.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isHealthProbe } from './literature/health-and-settings.js';
import { whenRequestEnds } from './request-end.js';
import { clientKey } from './client-address.js';
import { closeIfBodyUnread } from './unread-body.js';
import { ServiceUnavailableError } from './errors.js';

export interface InFlightLimits {
  /** Requests served at once; 0 = no limit. */
  total: number;
  /** Requests one address may have served at once; 0 = no limit. */
  perClient: number;
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
  /** Why a request from `address` may not be served now; null when it may. */
  const busyReason = (address: string): string | null => {
    if (perClient > 0 && (heldByAddress.get(address) ?? 0) >= perClient) {
      return `server busy: this client already has as many requests in progress as it may (--max-in-flight-per-client: ${perClient}); retry shortly`;
    }
    if (total > 0 && inFlight >= total) return `server busy: ${total} requests in progress; retry shortly`;
    return null;
  };
  /** Throws the 503 of a request from `address` that may not be served now. */
  const refuseIfBusy = (request: FastifyRequest, reply: FastifyReply, address: string) => {
    const reason = busyReason(address);
    if (reason === null) return;
    reply.header('retry-after', '1');
    // At onRequest, or for an upload, which its handler reads.
    closeIfBodyUnread(request, reply);
    throw new ServiceUnavailableError(reason);
  };
  // Before the body is read, the rate limit (a route's own onRequest) and authentication (preParsing): a busy
  // server's refusal costs it as little as it can. Preflights and requests no route takes are answered before
  // this hook (app.ts registers it after theirs): they cost nothing and take no slot.
  app.addHook('onRequest', async (request, reply) => {
    if (!isHealthProbe(request.url)) refuseIfBusy(request, reply, clientKey(request.ip));
  });
  app.addHook('preHandler', async (request, reply) => {
    if (isHealthProbe(request.url)) return;
    // Read once: the same key must be given back, whatever the socket says once it is gone.
    const address = clientKey(request.ip);
    // Again: the slots may have filled while the body was read.
    refuseIfBusy(request, reply, address);
    // Given back when the request ends (whenRequestEnds). Neither onResponse nor onRequestAbort would do: a
    // handler that answers a departed client nothing (or took the reply over) gets no onResponse, and Fastify
    // sees no abort once the body was read. A client gone while an earlier hook waited (authentication, the
    // body) is not counted: its end has come already and would not come again.
    if (!whenRequestEnds(request, reply, () => release(address))) return;
    inFlight++;
    heldByAddress.set(address, (heldByAddress.get(address) ?? 0) + 1);
  });
}
