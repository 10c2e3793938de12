/**
 * Behind a reverse proxy missing from --trust-proxy every client has the proxy's address: together they
 * get one rate limit and one --max-in-flight-per-client share, and the 429s and 503s that follow say
 * nothing of why. The first request carrying X-Forwarded-For from a sender not trusted is logged, once,
 * with the setting to change (a client sending the header itself sets it off too: hence once, and a warning).
 */
import type { FastifyInstance } from 'fastify';

export function warnOfUntrustedForwarding(app: FastifyInstance): void {
  let warned = false;
  app.addHook('onRequest', async (request) => {
    if (warned || String(request.headers['x-forwarded-for'] ?? '').trim() === '') return;
    // With --trust-proxy, request.ips runs from the sender to the client: more than the sender alone, and it was trusted.
    if ((request.ips?.length ?? 1) > 1) return;
    warned = true;
    request.log.warn(
      { sender: request.raw.socket.remoteAddress },
      'a request carries X-Forwarded-For from an address not in --trust-proxy: if a reverse proxy sent it, list the proxy there, ' +
        'or every client behind it counts as its address for --rate-limit and --max-in-flight-per-client (logged once)',
    );
  });
}
