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
 * Only HTTP/1.1 requests whose `Expect` names 100-continue come here: other expectations are answered
 * 417 (closing the connection), and `Expect` on HTTP/1.0 is ignored (by Node).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export function continueWhenBodyIsRead(server: Server): void {
  // Listening to 'checkContinue' stops Node's own 100; the request then takes the ordinary way.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    continueOnFirstRead(request, response);
    server.emit('request', request, response);
  });
  // Another expectation gets Node's 417, but on a connection kept alive: a body the client sends anyway
  // would be read as its next request. The connection is closed after the 417.
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(417, { connection: 'close', 'content-length': 0 });
    response.end();
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
