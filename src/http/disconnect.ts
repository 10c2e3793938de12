import type { FastifyReply } from 'fastify';

/**
 * A signal that aborts when the client goes away before its response is
 * complete: the work done for it (reranking, generation) stops, as nobody
 * is left to read the answer.
 */
export function abortOnDisconnect(reply: FastifyReply): AbortController {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller;
}
