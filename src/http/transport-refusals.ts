/**
 * Requests framed in ways this server does not take, refused in the app, so with what every answer
 * carries (request id, security and CORS headers, a JSON body in the vocabulary of the API addressed,
 * a log line). Node refused some of them itself with a bare status (no Host: 400; an `Expect` other
 * than 100-continue: 417), closed a CONNECT unanswered, and let the others through:
 *
 * - HTTP/1.1 without Host, or Host given twice: 400 (RFC 9112 §3.2). Node kept the first of two.
 * - `Expect` other than 100-continue (marked by expect-continue.ts): 417.
 * - a transfer coding besides chunked (`gzip, chunked`): 501 (RFC 9112 §6.1). Nothing here decodes one: a gzip
 *   body failed as "not valid UTF-8", and a plain body labelled gzip was read as plain.
 * - the target `*` (asterisk-form) is for OPTIONS only (RFC 9112 §3.2.4): 400 for any other method (it was
 *   served as `/`); `OPTIONS *` asks what the server as a whole takes: 204 with `Allow`.
 * - CONNECT (a tunnel, which this server does not open): 405 with `Allow`, written to the socket, as Node
 *   never hands CONNECT to the app.
 *
 * Each refusal closes the connection: the body, if any, is left unread.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unmetExpectation } from './expect-continue.js';
import { ErrorCode, literatureErrorBody } from './errors.js';
import { rawRefusal } from './raw-refusal.js';
import { acceptedRequestId, newRequestId } from './request-id.js';

/** Answers `status` with `reason`, in the vocabulary of the API the request addresses (`platformType`: its /v1 error type). */
type Refusal = (request: FastifyRequest, reply: FastifyReply, status: number, platformType: string, reason: string) => FastifyReply;

/** What a request's framing makes impossible to serve: its status, /v1 error type and reason; null when nothing. */
function framingProblem(request: FastifyRequest): [number, string, string] | null {
  const raw = request.raw;
  const hosts = hostHeaderCount(raw.rawHeaders);
  if (hosts > 1) return [400, 'MalformedRequest', `the request has ${hosts} Host headers; send one`];
  if (hosts === 0 && raw.httpVersion === '1.1') return [400, 'MalformedRequest', 'the request has no Host header'];
  if (unmetExpectation(raw)) return [417, 'ExpectationFailed', `Expect ${raw.headers.expect} is not supported; only 100-continue is`];
  const coding = raw.headers['transfer-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked') {
    return [501, 'NotImplemented', `Transfer-Encoding ${coding} is not supported; send the body with Transfer-Encoding: chunked alone, or with a Content-Length`];
  }
  if (raw.url === '*' && request.method !== 'OPTIONS') return [400, 'MalformedRequest', `the target * is only for OPTIONS, not ${request.method}`];
  return null;
}

function hostHeaderCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') count++;
  return count;
}

/**
 * Refuses, before any route or hook after it, requests whose framing this server does not take, and answers
 * `OPTIONS *`. `everyMethod`: the methods some route takes. The server must be created with
 * `requireHostHeader: false`, or Node answers a request without Host before the app sees it.
 */
export function refuseUnsupportedFraming(app: FastifyInstance, everyMethod: () => string[], refuse: Refusal): void {
  app.addHook('onRequest', async (request, reply) => {
    const problem = framingProblem(request);
    if (problem !== null) return refuse(request, reply.header('connection', 'close'), ...problem);
    if (request.raw.url === '*') return reply.code(204).header('allow', everyMethod().join(', ')).send();
  });
}

/**
 * Answers CONNECT 405 on its socket, then closes it. Node hands CONNECT to 'connect' listeners with the
 * bare socket (no response object, so no fastify), and closed it without a word when there was none.
 * The target is an authority (`host:port`), no path of either API: the literature vocabulary answers.
 */
export function refuseConnect(server: Server, everyMethod: () => string[], logger: FastifyBaseLogger | undefined): void {
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const requestId = acceptedRequestId(request.headers['x-request-id']) ?? newRequestId();
    const allowed = everyMethod().join(', ');
    logger?.info({ reqId: requestId, method: request.method, url: request.url, statusCode: 405 }, 'CONNECT refused');
    const body = literatureErrorBody(ErrorCode.METHOD_NOT_ALLOWED, `this server opens no tunnels: it takes ${allowed}, not CONNECT`);
    if (socket.writable) socket.end(rawRefusal(405, body, requestId, { allow: allowed }));
    else socket.destroy();
  });
}
