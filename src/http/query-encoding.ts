/**
 * Query strings whose percent-escapes do not decode (to UTF-8) are refused
 * before any route runs. The query-string parser keeps a value it cannot
 * decode as it was sent: `topics=caf%E9` (é in Latin-1) was searched as "caf"
 * and "e9", and `query=%ED%A0%80` (an encoded surrogate) matched "80", both
 * with 200 and an answer to another question.
 *
 * A route that never reads its query string on the server opts out with the
 * route option `config: { queryStringUnread: true }`: the web page's files
 * (the page reads its own address in the browser), where `/ui/?q=50% inhibition`
 * typed in the address bar gets the page, not a JSON refusal.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route never reads its query string: any is served, decodable or not. */
    queryStringUnread?: boolean;
  }
}

const REASON = 'the query string holds a percent-escape that is not UTF-8 or not two hexadecimal digits (write a literal % as %25)';

/** Whether every percent-escape of the URL's query string decodes. */
function queryDecodes(url: string): boolean {
  const start = url.indexOf('?');
  if (start < 0) return true;
  try {
    decodeURIComponent(url.slice(start + 1));
    return true;
  } catch {
    return false;
  }
}

/** Adds the check; `refuse` answers in the vocabulary of the API the request addresses. */
export function refuseUndecodableQueries(app: FastifyInstance, refuse: (request: FastifyRequest, reply: FastifyReply, reason: string) => FastifyReply): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.queryStringUnread !== true && !queryDecodes(request.url)) return refuse(request, reply, REASON);
  });
}
