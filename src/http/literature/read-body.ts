/**
 * A GET (or HEAD) of the literature API takes its parameters in the query string and reads no body: one sent
 * with filters in it (`{"authors": ["x"]}`) would be answered as if it had none, the whole corpus counted. Such a
 * request is refused, as unknown parameters are: a request must not lose what it asked for without a word.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from '../errors.js';
import { closeIfBodyUnread } from '../unread-body.js';

export function refuseBodiesOfReads(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const length = request.headers['content-length'];
    if ((length === undefined || length === '0') && request.headers['transfer-encoding'] === undefined) return;
    closeIfBodyUnread(request, reply);
    throw new ApiError(400, ErrorCode.INVALID_INPUT, `a ${request.method} request's body is not read: ${whereParametersGo(request)}`);
  });
}

/** The route's own parameters as a query string's start (`?topics=…&authors=…`), or that it takes none (/healthz). */
function whereParametersGo(request: FastifyRequest): string {
  const querystring = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  const names = Object.keys(querystring?.properties ?? {});
  if (names.length === 0) return 'this route takes no parameters; send it without one';
  return `give its parameters in the query string (?${names.slice(0, 2).map((name) => `${name}=…`).join('&')})`;
}
