/**
 * The drain at SIGTERM, SIGINT or a terminal's SIGHUP: server.ts closes the app, which stops accepting connections and lets the
 * requests in flight finish, for --shutdown-timeout at most, then cuts what is left.
 *
 * A request that still arrives on a connection already open is refused 503 here, in the vocabulary of the
 * API addressed, with the request id, the security headers and `Retry-After`: fastify's own refusal
 * (`return503OnClosing`, off in app.ts) wrote a body of its own and bypassed every hook. Fastify closes the
 * connection after it. Health probes are refused too, so that a load balancer stops sending requests here.
 *
 * A request whose connection the drain cut is logged as such, not as its client's departure.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceUnavailableError } from './errors.js';

/** Seconds: a restart or another replica takes about that long to be there. */
export const RETRY_AFTER_SECONDS = 5;

/** The servers whose drain time ran out and whose connections were cut. */
const cut = new WeakSet<object>();

export function refuseWhileDraining(app: FastifyInstance): void {
  let draining = false;
  // preClose: the first thing close() runs, before the listener stops.
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!draining) return;
    reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    throw new ServiceUnavailableError('server shutting down: it serves no new request; retry shortly (another replica, or this one once restarted)');
  });
}

/** Cuts every connection still open: the drain time is up, or a second signal came. */
export function cutRemainingConnections(app: FastifyInstance): void {
  cut.add(app.server);
  app.server.closeAllConnections();
}

/** Whether the request's connection was cut at the end of the drain (its client may not have left). */
export const cutByDrain = (request: FastifyRequest) => cut.has(request.server.server);
