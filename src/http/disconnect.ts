import type { FastifyReply, FastifyRequest } from 'fastify';
import { departureLoggedByRoute } from './abandoned-requests.js';
import { cutByDrain } from './draining.js';
import { whenRequestEnds } from './request-end.js';

/**
 * A signal that aborts when the client goes away before its response is
 * complete: the work done for it (reranking, generation, an archive waiting
 * for its turn) stops, as nobody is left to read the answer. A client that
 * left before the handler asked (while a hook or the body read was awaited)
 * gets a signal aborted already. A request queued behind another on its
 * connection (pipelining) is told of the connection's close too.
 *
 * The route logs its client's departure itself when its work stops ("client disconnected; generation
 * stopped"): that line, which carries the request's method, url and how long it had run, is its only one
 * (abandoned-requests.ts).
 */
export function abortOnDisconnect(reply: FastifyReply): AbortController {
  const controller = new AbortController();
  departureLoggedByRoute(reply.request);
  const abortIfUnfinished = () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  };
  if (!whenRequestEnds(reply.request, reply, abortIfUnfinished)) abortIfUnfinished();
  return controller;
}

/**
 * The line of a route whose work (a generation, a reranking) stopped as its connection went: its client left, or the
 * end of the shutdown drain cut it, which is not logged as a client leaving, since none did.
 */
export function workStopped(request: FastifyRequest, work: 'generation' | 'reranking'): string {
  return cutByDrain(request) ? `${work} stopped: the shutdown drain ended and cut its connection` : `client disconnected; ${work} stopped`;
}
