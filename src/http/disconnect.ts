import type { FastifyReply } from 'fastify';
import { departureLoggedByRoute } from './abandoned-requests.js';
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
