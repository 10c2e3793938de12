/**
 * A request whose client left before its response was sent (a client that gave up waiting on a frozen store,
 * curl --max-time) gets no 'request completed' line: fastify writes that on the response's 'finish', which never
 * comes, not even once the handler answers after the store is back. One info line says so instead, when the
 * client leaves, so an operator can find a client's timeout: the request id, method, url and how long it had run.
 *
 * A route that stops its work when its client leaves (abortOnDisconnect) logs the departure itself once its work
 * has stopped ("client disconnected; generation stopped"): not twice, but with these fields bound to its logger.
 * Should such a route answer anyway (its work was past stopping), the answer reaches no one and the line is
 * written then.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cutByDrain } from './draining.js';
import { whenRequestEnds } from './request-end.js';

const MESSAGE = 'client disconnected before the response was sent';
const PART_WAY_MESSAGE = 'client disconnected part-way through the response';
const DRAIN_ENDED = 'the shutdown drain ended (--shutdown-timeout ran out, or a second signal came)';
const CUT_MESSAGE = `connection cut before the response was sent: ${DRAIN_ENDED}`;
/** Said, with its status, of a response whose headers were sent: a download cut after 26 MB is not one cut "before the response was sent". */
const PART_WAY_CUT_MESSAGE = `connection cut part-way through the response: ${DRAIN_ENDED}`;

const CUT_BY_SERVER_MESSAGE = 'response cut by the server after its first bytes (its error is logged above)';

/** The requests whose response the server cut itself, after an error logged then. */
const cutHere = new WeakSet<FastifyRequest>();

/** For a response a route cuts short after an error it logs: its end is no client's departure. */
export function responseCutByServer(request: FastifyRequest): void {
  cutHere.add(request);
}

/** The requests whose route logs its client's departure itself, and whether their client has left. */
const loggedByRoute = new WeakMap<FastifyRequest, { departed: boolean }>();

/** Per server, the requests whose end has not come yet: none of their lines (a departure, a cut) is written yet. */
const unended = new WeakMap<object, Set<FastifyRequest>>();

export function logAbandonedRequests(app: FastifyInstance): void {
  const requests = new Set<FastifyRequest>();
  unended.set(app.server, requests);
  app.addHook('onRequest', async (request, reply) => {
    // Its 'finish', which comes before the 'close': light-my-request's responses (inject) never set writableFinished.
    let finished = false;
    reply.raw.once('finish', () => (finished = true));
    const departed = () => {
      if (finished) return;
      const partWay = reply.raw.headersSent;
      const fields = {
        method: request.method,
        url: request.url,
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
        ...(partWay && { statusCode: reply.raw.statusCode }),
      };
      if (cutByDrain(request)) {
        request.log.warn(fields, partWay ? PART_WAY_CUT_MESSAGE : CUT_MESSAGE);
        return;
      }
      if (cutHere.has(request)) {
        request.log.warn(fields, CUT_BY_SERVER_MESSAGE);
        return;
      }
      const byRoute = loggedByRoute.get(request);
      if (byRoute === undefined) {
        request.log.info(fields, partWay ? PART_WAY_MESSAGE : MESSAGE);
        return;
      }
      request.log = request.log.child(fields);
      byRoute.departed = true;
    };
    requests.add(request);
    const ended = () => {
      requests.delete(request);
      departed();
    };
    if (!whenRequestEnds(request, reply, ended)) ended();
  });
  app.addHook('onSend', async (request) => {
    const byRoute = loggedByRoute.get(request);
    if (!byRoute?.departed) return;
    byRoute.departed = false;
    request.log.info(MESSAGE);
  });
}

/** For a route that logs its client's departure itself (abortOnDisconnect): no line of ours, unless it answers after all. */
export function departureLoggedByRoute(request: FastifyRequest): void {
  if (!loggedByRoute.has(request)) loggedByRoute.set(request, { departed: false });
}

/**
 * Resolves once every request of the app has ended (its line, if any, written), or after `boundMs`. A request cut
 * at the drain's end can end after the server has closed (its body's reader fails a moment later), and the
 * process must not exit before its "connection cut" line is written.
 */
export async function requestsEnded(app: FastifyInstance, boundMs: number): Promise<void> {
  const requests = unended.get(app.server);
  const deadline = Date.now() + boundMs;
  while (requests !== undefined && requests.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}
