/**
 * A refusal sent before the request's body was read (a bad file name, a declared length no file fits,
 * a missing permission) ends with `Connection: close`: reading the rest of an unwanted upload to keep
 * the connection could take as long as the client likes. Node then closed the socket as soon as the
 * answer was written, with the client's bytes still arriving: the kernel answers those with a reset,
 * and a client still writing its body failed its write with EPIPE before it read the answer waiting
 * for it (Node's fetch in another event loop: every streamed upload refused 413, a third of 5-20 MB
 * FormData uploads refused 400 for their file name).
 *
 * Such a connection is closed the way RFC 9112 §9.6 describes instead (Apache's and nginx's "lingering
 * close"): the answer, then the end of the server's side, and the client's bytes read and dropped until
 * the client closes its side, which it does once it has read the answer. Both the wait and the bytes
 * are bounded, so a client that never stops sending holds the connection no longer than that.
 */
import type { IncomingMessage, Server } from 'node:http';
import { Socket } from 'node:net';

/**
 * How long the client has, after the answer, to close its side. A client reads the answer within a
 * round trip of its arrival unless its event loop is busy (building a large body, say): Node's fetch on
 * loopback closed within 0.4 s of it (180 refused uploads). A slow or hostile client holds the connection,
 * and a slot of --max-connections-per-client, this long at most.
 */
export const LINGER_MS = 3_000;

/**
 * How many of the client's bytes are read and dropped at most. A client keeps sending until it has read
 * the answer: what is in flight then is its socket buffers and what it wrote meanwhile. Node's fetch on
 * loopback (the fastest case) sent 4 MB after the answer in the median, 12 MB at the 90th percentile and
 * 29 MB at most (180 refused uploads): twice that is allowed. Past it, a client that goes on sending
 * costs bandwidth for nothing and is cut.
 */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

/**
 * How often the bytes read are compared with LINGER_MAX_BYTES: a client sending faster than the bound
 * per interval (64 MiB in 50 ms, 1.3 GB/s) is cut a little past it, and the time bound holds whatever the rate.
 */
const LINGER_COUNT_EVERY_MS = 50;

export function lingerBeforeClosing(server: Server): void {
  server.on('request', (request: IncomingMessage) => {
    const socket = request.socket;
    // Node closes a connection after its last answer with `destroySoon` (end, then destroy at once): the
    // socket's own, replaced for the connection's latest request. A request read whole has nothing left
    // to drain and closes as before.
    socket.destroySoon = function closeAfterLingering(this: Socket) {
      if (request.complete || !this.writable) Socket.prototype.destroySoon.call(this);
      else linger(this);
    };
  });
}

function linger(socket: Socket): void {
  // The answer, then the server's end of the stream: the client reads both before anything that follows.
  socket.end();
  const startedAt = socket.bytesRead;
  const cut = () => socket.destroy();
  const deadline = setTimeout(cut, LINGER_MS);
  // Node's HTTP parser reads the socket itself (no 'data' events; a listener would take the socket from
  // it, and leave about one in 45 paused, reading nothing to the deadline) and drops the refused body's bytes:
  // what it has read is counted from time to time.
  const count = setInterval(() => {
    if (socket.bytesRead - startedAt > LINGER_MAX_BYTES) cut();
  }, LINGER_COUNT_EVERY_MS);
  // The client closed its side: it has read the answer.
  socket.once('end', cut);
  socket.once('close', () => {
    clearTimeout(deadline);
    clearInterval(count);
  });
}
