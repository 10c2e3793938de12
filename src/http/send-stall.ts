/**
 * Responses a client stops reading. A response waits on its client: a client that never reads holds
 * its connection, the memory of what is queued for it and a slot of --max-in-flight for as long as it
 * likes (260 unread downloads hold every slot). A response is cut once some of it has been waiting
 * to be sent for the whole stall time while nothing more left for the client; a response still being
 * computed (nothing waiting) or read slowly but steadily is never cut.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { whenRequestEnds } from './request-end.js';

interface Progress {
  /** The connection's latest request, to name in the log. */
  request: FastifyRequest;
  /** Its responses not yet closed: several while requests are pipelined. */
  open: number;
  /** The socket's output counts at the last look (outputState). */
  state: string;
  /** When they last changed, or nothing was waiting. */
  since: number;
}

/**
 * What the socket has been given and still holds. A write stays whole in `writableLength` until the
 * kernel has taken all of it, so a 2 MB body read slowly would look stalled: the system's queue,
 * which shrinks as the kernel takes bytes, is only on the (undocumented, long-stable) handle.
 */
function outputState(socket: Socket): string {
  const systemQueue = (socket as unknown as { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0;
  return `${socket.bytesWritten}/${socket.writableLength}/${systemQueue}`;
}

export function cutStalledResponses(app: FastifyInstance, stallMs: number): void {
  // Per connection, not per response: the output counts are the connection's, and a response queued
  // behind another (pipelining) is watched through the one being sent.
  const watched = new Map<Socket, Progress>();
  const sweepEveryMs = Math.max(100, stallMs / 4);
  // Armed only while some response is open: an idle server wakes for nothing.
  let sweepTimer: NodeJS.Timeout | null = null;
  const sweep = () => {
    sweepTimer = null;
    const now = Date.now();
    for (const [socket, progress] of watched) {
      const state = outputState(socket);
      if (socket.writableLength === 0 || state !== progress.state) {
        progress.state = state;
        progress.since = now;
      } else if (now - progress.since >= stallMs) {
        progress.request.log.warn({ waiting: socket.writableLength }, `the client read nothing of its response for ${stallMs / 1000} s: connection cut (--send-stall-timeout)`);
        watched.delete(socket);
        socket.destroy();
      }
    }
    armSweep();
  };
  const armSweep = () => {
    if (sweepTimer === null && watched.size > 0) sweepTimer = setTimeout(sweep, sweepEveryMs).unref();
  };
  // From the request on, not from onSend: streamed answers and downloads take their replies over and skip onSend.
  app.addHook('onRequest', async (request, reply) => {
    const socket = request.raw.socket;
    const progress = watched.get(socket);
    const ended = () => {
      const current = watched.get(socket);
      if (current && --current.open === 0) watched.delete(socket);
    };
    if (!whenRequestEnds(request, reply, ended)) return;
    if (progress) {
      progress.request = request;
      progress.open++;
    } else {
      watched.set(socket, { request, open: 1, state: outputState(socket), since: Date.now() });
    }
    armSweep();
  });
  app.addHook('onClose', async () => {
    if (sweepTimer !== null) clearTimeout(sweepTimer);
  });
}
