import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Whether a request refused before its body is read still has body to come: one is declared (a Content-Length
 * other than 0, or a transfer coding) and Node has not parsed all of it. Kept alive, the connection would first
 * read the rest of it, whatever its length; so such a refusal closes it (it lingers, lingering-close.ts, and the
 * client reads the answer). A request without a body, or whose body has arrived whole, keeps its connection.
 * The declaration matters: Node marks no request complete before its first hook runs, bodyless ones included.
 */
function bodyStillToCome(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  const declared = (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
  return declared && !request.raw.complete;
}

/** A refusal answered before the body was read closes its connection when body is still to come (bodyStillToCome). */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (bodyStillToCome(request)) reply.header('connection', 'close');
}
