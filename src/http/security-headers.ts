/**
 * Headers that stop a browser from running what users stored: file downloads
 * carry user-chosen media types (text/html, image/svg+xml), and renderings and
 * error messages echo user text. `nosniff` keeps browsers to the declared
 * type; the sandboxing CSP keeps a page served from here from running scripts,
 * loading anything or reaching this origin's cookies. The web page's own
 * documents (src/http/ui) set a policy that lets them run their own scripts;
 * a policy a route set itself is kept.
 *
 * `no-referrer` rather than `strict-origin-when-cross-origin`: the web page's
 * address holds the user's query and filters: no other host should learn
 * even that a search was made from here, and this server has them already
 * (the page's requests repeat them in their own addresses; a Referer would add
 * a copy, into logs and proxies on the way, and into the 16 KiB of headers the
 * server reads). Nothing here reads Referer, so sending none costs nothing.
 * Every response carries it, the page's and the APIs' alike.
 *
 * `Cache-Control: no-store` on every response whose route did not choose its caching: the APIs' answers hold a
 * user's query, results and what a token let them read (the archive listing, the ZIP), which a browser would
 * otherwise keep in its disk cache after the tab, and its token, are gone, for the next user of the machine to
 * find. The web page's own files choose theirs (`no-cache`: revalidated, and they hold nothing of the user's).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'referrer-policy': 'no-referrer',
} as const;

export function addSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => setSecurityHeaders(reply));
}

/** The headers on one reply, a policy its route chose kept: for answers no hook sees (the router's refusals). */
export function setSecurityHeaders(reply: FastifyReply): void {
  reply.header('x-content-type-options', SECURITY_HEADERS['x-content-type-options']);
  reply.header('referrer-policy', SECURITY_HEADERS['referrer-policy']);
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  if (!reply.hasHeader('content-security-policy')) {
    reply.header('content-security-policy', SECURITY_HEADERS['content-security-policy']);
  }
}
