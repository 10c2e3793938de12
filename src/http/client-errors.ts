/**
 * Requests refused before any route runs, answered in the vocabulary of the API their URL addresses: those
 * Node's HTTP parser rejects, written straight to the socket (raw-refusal.ts) as they never reach fastify, and
 * those the router or a hook ahead of the routes refuses. The /v1 error body is handed in (`PlatformErrorBody`):
 * the modules of this folder do not import the /v1 routes' folder.
 */
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, literatureErrorBody } from './errors.js';
import { addressesPlatform } from './platform-path.js';
import { rawRefusal } from './raw-refusal.js';
import { newRequestId } from './request-id.js';

/** The /v1 API's error body of type `platformType` (http/platform/errors.ts's platformErrorBody). */
export type PlatformErrorBody = (platformType: string, reason: string) => unknown;

/** The answers to requests refused before any route runs, in the vocabulary of the API addressed. */
export interface ClientErrorAnswers {
  /** Refuses a request fastify took (`platformType`: its /v1 error type), 400 unless `status` says otherwise. */
  refuseUrl(request: FastifyRequest, reply: FastifyReply, platformType: string, reason: string, status?: number): FastifyReply;
  /** The server's clientErrorHandler: answers a request Node's HTTP parser rejected, on its socket. */
  answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void;
}

/** The URL of the request each connection is on, for the answer to a request that times out while its body is sent. */
const requestUrls = new WeakMap<Socket, string>();

/** Keeps the URL of the request each connection of the app is on, from the request's start to its response. */
export function trackRequestUrls(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    requestUrls.set(request.raw.socket, request.url);
  });
  app.addHook('onResponse', async (request) => {
    requestUrls.delete(request.raw.socket);
  });
}

/** The answers in the literature vocabulary and `platformErrorBody`'s; the parser's refusals are logged to `logger`. */
export function clientErrorAnswers(platformErrorBody: PlatformErrorBody, logger: FastifyBaseLogger | undefined): ClientErrorAnswers {
  /** A refusal's body: in the /v1 vocabulary (`platformType`) when `url` addresses /v1, else in the literature one (`code`). */
  const bodyOf = (url: string, platformType: string, code: number, reason: string) =>
    addressesPlatform(url) ? platformErrorBody(platformType, reason) : literatureErrorBody(code, reason);

  const refuseUrl: ClientErrorAnswers['refuseUrl'] = (request, reply, platformType, reason, status = 400) =>
    reply.code(status).type('application/json').send(JSON.stringify(bodyOf(request.url, platformType, ErrorCode.INVALID_INPUT, reason)));

  /**
   * Malformed HTTP (bad request line, oversized headers, conflicting lengths, slow clients): one response,
   * then close. The body is in the `/v1` vocabulary when the request addresses `/v1` (its request line in
   * the bytes the parser failed on, or a request whose body was still coming); otherwise in the literature one.
   * Like every answer it carries a request id (a new one: the client's header may be what failed to parse),
   * and the log a line under that id.
   */
  const answerClientError: ClientErrorAnswers['answerClientError'] = (error, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // The client ended its side mid-body (an upload cut short): the connection is closed, and the request under way
    // logs its client's departure under its own id. An answer here would give one request two ids and two log lines,
    // one "refused by the HTTP parser"; leaving the socket open would keep the request until --request-timeout.
    if (error.code === 'HPE_INVALID_EOF_STATE' && requestUrls.has(socket)) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const message =
      status === 431 ? 'request headers too large'
      : status === 408 ? 'request not received in time (--request-timeout)'
      // curl and many scripts send a URL's non-ASCII letters as they are: say how to send them.
      : error.code === 'HPE_INVALID_URL' ? 'malformed HTTP request: the URL holds a character it may not carry as it is (a non-ASCII letter, a space, a control character); percent-encode it (é as %C3%A9, a space as %20)'
      : 'malformed HTTP request';
    // The bytes the parser failed on (a Buffer, whatever fastify's types say) start with the request line when it was not read yet.
    const requestLine = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1', 0, 64) : '';
    // The method is known from that line alone (a HEAD's answer has no body): Node names it only once the headers end,
    // and a timeout comes with no bytes, so a HEAD timed out or whose request line came in an earlier packet gets the body.
    // (A request timed out while its body came was no HEAD: fastify answers a HEAD without waiting for its body.)
    const [, method, lineUrl] = /^([A-Z]+) (\S+)/.exec(requestLine) ?? [];
    // The request line was read as Latin-1 bytes: a URL's UTF-8 letters are logged as the client wrote them.
    const url = lineUrl !== undefined ? Buffer.from(lineUrl, 'latin1').toString('utf8') : (requestUrls.get(socket) ?? '');
    const platformType = status === 431 ? 'HeadersTooLarge' : status === 408 ? 'RequestTimeout' : 'MalformedRequest';
    // Headers too large are input too large (code 4), as a query over --max-query-length is: a longer one ends up here.
    const code = status === 431 ? ErrorCode.INPUT_TOO_LARGE : ErrorCode.INVALID_INPUT;
    const body = bodyOf(url, platformType, code, message);
    const requestId = newRequestId();
    logger?.info({ reqId: requestId, url, statusCode: status, code: error.code }, 'request refused by the HTTP parser');
    socket.end(rawRefusal(status, body, requestId, {}, method));
  };

  return { refuseUrl, answerClientError };
}
