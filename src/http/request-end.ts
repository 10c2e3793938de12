/**
 * The end of a request's life, for what is held on its behalf (a slot of --max-in-flight, a place in a
 * queue, a watch on its response): its response's 'close', which comes once for a response sent or cut
 * by a client that left, or the close of its connection, whichever comes first.
 *
 * The connection is needed too: a response queued behind another on one connection (HTTP pipelining)
 * gets no 'close' of its own when the connection closes under it; Node destroys only its request. A
 * client pipelining a slow request and many quick ones, then leaving, would keep every slot of those it
 * left behind for good (255 of 256 from three addresses, and the server would answer one request at a time).
 */
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Per connection, the ends waiting for its close: one listener a connection, however many requests it carries. */
const endsOfConnection = new WeakMap<Socket, Set<() => void>>();

/**
 * Calls `ended` once, when the request's life ends. Returns false, and never calls it, when it has
 * ended already: its response closed while a hook or the body was awaited, or its connection did.
 */
export function whenRequestEnds(request: FastifyRequest, reply: FastifyReply, ended: () => void): boolean {
  const socket = request.raw.socket;
  if (reply.raw.destroyed || socket.destroyed) return false;
  const connectionEnds = endsOf(socket);
  const end = () => {
    reply.raw.off('close', end);
    connectionEnds.delete(end);
    ended();
  };
  reply.raw.once('close', end);
  connectionEnds.add(end);
  return true;
}

/** The ends waiting for `socket`'s close, listening for it on the first request. */
function endsOf(socket: Socket): Set<() => void> {
  const known = endsOfConnection.get(socket);
  if (known !== undefined) return known;
  const ends = new Set<() => void>();
  socket.once('close', () => {
    for (const end of ends) end();
  });
  endsOfConnection.set(socket, ends);
  return ends;
}
