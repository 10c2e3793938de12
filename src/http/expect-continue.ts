/**
 * `Expect: 100-continue` answered when the body is read, not when the headers arrive. Node wrote
 * "100 Continue" itself at once, before routing, authentication or the body limit, so a client was
 * invited to send (say) a 100 MiB upload that would be refused 401, 404 or 413 anyway.
 *
 * Here the 100 is written when something first reads the request's body (a body parser, the upload's
 * multipart stream): by then the route is known, its hooks (CORS, rate limit, authentication) have
 * passed, and fastify has compared the declared Content-Length with the route's body limit, which it
 * does before it reads. A request refused before that gets its final status with no 100; Node then
 * closes the connection (`Connection: close`), as the client may or may not send the body after all.
 * A request with `Expect` whose body nobody reads (a GET) is answered the same way.
 *
 * Only HTTP/1.1 requests whose `Expect` names 100-continue come here: other expectations are marked
 * (unmetExpectation) and handed to the app, which answers 417 as it answers any refusal
 * (transport-refusals.ts); `Expect` on HTTP/1.0 is ignored (by Node).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Requests whose `Expect` Node found to name something other than 100-continue. */
const unmetExpectations = new WeakSet<IncomingMessage>();

/** Whether the request's `Expect` is one this server cannot meet (to be answered 417). */
export function unmetExpectation(request: IncomingMessage): boolean {
  return unmetExpectations.has(request);
}

export function continueWhenBodyIsRead(server: Server): void {
  // Listening to 'checkContinue' stops Node's own 100; the request then takes the ordinary way.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    continueOnFirstRead(request, response);
    server.emit('request', request, response);
  });
  // Node's own 417 for another expectation was bare (no request id, headers, JSON body or log line) and
  // kept the connection alive: the app answers it instead, and closes the connection.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    unmetExpectations.add(request);
    server.emit('request', request, response);
  });
}

/**
 * Every way of reading a Readable (a 'data' listener, pipe, resume, read) asks for data through
 * `_read`, and Node's request calls it only once someone consumes it: the first call is the moment.
 */
function continueOnFirstRead(request: IncomingMessage, response: ServerResponse): void {
  const read = request._read;
  request._read = function readAfterContinue(size) {
    request._read = read;
    // Node reads an unread body itself to its end after the response (to drop it): no 100 then.
    if (!response.headersSent && !response.writableEnded) response.writeContinue();
    read.call(this, size);
  };
}
