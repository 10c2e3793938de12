import type { FastifyReply } from 'fastify';

/**
 * A signal that aborts when the client goes away before its response is
 * complete: the work done for it (reranking, generation, an archive waiting
 * for its turn) stops, as nobody is left to read the answer. A client that
 * left before the handler asked (while a hook or the body read was awaited)
 * gets a signal aborted already: the response's 'close' came and will not
 * come again.
 */
export function abortOnDisconnect(reply: FastifyReply): AbortController {
  const controller = new AbortController();
  const abortIfUnfinished = () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  };
  if (reply.raw.destroyed) abortIfUnfinished();
  else reply.raw.on('close', abortIfUnfinished);
  return controller;
}
