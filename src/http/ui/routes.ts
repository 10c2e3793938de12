/**
 * GET /ui/ (the web page and its files) and GET /docs (the API reference page,
 * which renders /openapi.json). Open to every caller, like /openapi.json: the
 * page holds no data; what it shows comes from the guarded APIs.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { UiAssets } from './assets.js';
import { chooseCoding } from './content-coding.js';
import { matchesEtag } from '../entity-tags.js';
import { negotiate } from '../negotiation.js';
import { typed } from '../typed.js';

/**
 * Everything the page loads comes from this server: the policy makes the
 * browser refuse any other host, whatever a script or a stored string tries.
 * Trusted Types: the page's scripts build the DOM with createElement and
 * textContent only, so every string-to-HTML or string-to-script sink
 * (innerHTML, insertAdjacentHTML, document.write, a script's src, eval-like
 * calls) is refused outright, and no policy may be created that would let one
 * through: a string from an article can never become markup or code.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/**
 * The page's address relative to the server's root (`/` and `/ui` alike: both are at the root): a redirect
 * to `/ui/` would take a browser out of the path a reverse proxy serves the server under (`https://host/base/`).
 */
export const PAGE_FROM_ROOT = 'ui/';

/**
 * True when a client asks for a page (a browser) rather than JSON: its Accept gives text/html a q-value
 * above 0 and above application/json's, or the same one by naming it more specifically (RFC 9110 §12.5.1:
 * `text/html, *\/*`). A tie otherwise is JSON's, so an API client is never sent to a page: `*\/*` (curl),
 * `application/json, text/html` alike. Media types are case-insensitive (`TEXT/HTML`). Browsers list
 * text/html first at 1 and everything else (`*\/*`) lower, so they are redirected.
 */
export function wantsHtml(request: FastifyRequest): boolean {
  // JSON offered first: a tie of quality and specificity goes to the first offer.
  return negotiate(request.headers.accept, ['application/json', 'text/html']) === 'text/html';
}

/**
 * The page's own files are not counted against --rate-limit: they are served from memory, and one
 * load asks for ten of them, so a few reloads would use up a caller's budget and a module refused
 * with 429 leaves a blank page that cannot even say why. The API requests the page makes are counted.
 * Nor is their query string checked (query-encoding.ts): the page reads it in the browser, and an
 * address typed as `?q=50% inhibition` must open the page, not a JSON refusal.
 */
const PAGE_FILE = { rateLimit: false, queryStringUnread: true } as const;

/** The query string of a request target, with its `?` (empty when there is none). */
function queryStringOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start);
}

export const uiRoutes: FastifyPluginAsync<{ assets: UiAssets }> = async (app, { assets }) => {
  const api = typed(app);
  const send = (request: FastifyRequest, reply: FastifyReply, name: string) => {
    const asset = assets.get(name);
    if (!asset) return reply.callNotFound();
    const gzipped = chooseCoding(request.headers['accept-encoding']) === 'gzip';
    const etag = gzipped ? asset.gzipEtag : asset.etag;
    reply
      .header('content-type', asset.contentType)
      .header('etag', etag)
      // Revalidate every time (cheap: 304 on a matching ETag), so a restarted server's new page is used at once.
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'Accept-Encoding');
    if (asset.contentType.startsWith('text/html')) {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      // A page of another site that opened this one (window.open) keeps no handle on it: it could otherwise send
      // this tab, later, to a look-alike page that asks for the access token again.
      reply.header('cross-origin-opener-policy', 'same-origin');
    }
    if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
    if (gzipped) return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.body);
  };

  app.get('/ui/', { schema: { hide: true }, config: PAGE_FILE }, (request, reply) => send(request, reply, 'index.html'));
  // The address typed without its last slash leads to the page (its query string kept), not to an error.
  // Only the query string is taken from the request: its target may be in absolute form (`http://host/ui?q=1`).
  // Relative (`…/ui` + `ui/` is `…/ui/`), so that it stays under the path a reverse proxy may serve the server at.
  app.get('/ui', { schema: { hide: true }, config: PAGE_FILE }, (request, reply) => reply.redirect(`${PAGE_FROM_ROOT}${queryStringOf(request.url)}`, 301));
  api.get(
    '/ui/*',
    { schema: { hide: true, params: { type: 'object', properties: { '*': { type: 'string' } }, required: ['*'] } }, config: PAGE_FILE },
    (request, reply) => send(request, reply, request.params['*']),
  );
  app.get('/docs', { schema: { hide: true }, config: PAGE_FILE }, (request, reply) => send(request, reply, 'docs.html'));
};
