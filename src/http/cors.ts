/**
 * Cross-origin access for front ends served from other origins (`--cors-origins`).
 * Only the APIs a front end calls are shared: the literature routes and /v1.
 * Credentials (cookies) are never allowed: the server has none, callers send
 * bearer tokens in the Authorization header, which a preflight may allow.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addressesPlatform } from './platform-path.js';

/** The literature routes a front end calls; /v1 is shared whole. */
const SHARED_LITERATURE_PREFIXES = ['/retrieval', '/suggestions', '/qa/', '/settings'];
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
/** The range and conditional headers let a page revalidate and resume file downloads, and guard its /v1 writes. */
const ALLOWED_HEADERS = 'authorization, content-type, accept, x-request-id, range, if-range, if-none-match, if-match, if-unmodified-since';
/** What a cross-origin script may read besides the CORS-safelisted headers: those of 405, 206 and 304 answers included. */
const EXPOSED_HEADERS = 'x-request-id, retry-after, location, content-disposition, www-authenticate, allow, etag, accept-ranges, content-range';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

function isSharedPath(url: string): boolean {
  return addressesPlatform(url) || SHARED_LITERATURE_PREFIXES.some((prefix) => url.startsWith(prefix));
}

/** The Access-Control-Allow-Origin value for a request's Origin, or null when it is not allowed. */
function allowedOrigin(origins: readonly string[], origin: string | undefined): string | null {
  if (origin === undefined || origins.length === 0) return null;
  if (origins.includes('*')) return '*';
  return origins.includes(origin) ? origin : null;
}

/**
 * Sets the CORS headers of a shared route's answer: for an answer written before
 * any hook runs (a URL the router cannot decode), and by `enableCors` for the rest.
 */
export function addCorsHeaders(origins: readonly string[], request: FastifyRequest, reply: FastifyReply): void {
  if (origins.length === 0 || !isSharedPath(request.url)) return;
  const allowed = allowedOrigin(origins, request.headers.origin);
  // Set on the raw response: the streamed QA route writes its own head, which Node merges with these.
  // Caches must not give one origin's answer to another.
  reply.raw.setHeader('vary', 'Origin');
  if (allowed === null) return;
  reply.raw.setHeader('access-control-allow-origin', allowed);
  reply.raw.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
}

/**
 * Adds the CORS headers to shared routes' answers, refusals included (a page must be able to read a
 * 503's Retry-After or a 400's message), so call it before any hook that may refuse a request.
 */
export function enableCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    addCorsHeaders(origins, request, reply);
  });
}

/**
 * Answers the preflights (OPTIONS with Access-Control-Request-Method) of shared routes from allowed
 * origins. Call it after the URL checks (a preflight they refuse stays refused), and before every other
 * hook: a preflight carries no token, so it must not meet authentication or the rate limit. Load shedding
 * refuses after it, so a preflight, which costs nothing, is answered at the limit too.
 */
export function answerPreflights(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) return;
    if (!isSharedPath(request.url) || allowedOrigin(origins, request.headers.origin) === null) return;
    reply.raw.removeHeader('access-control-expose-headers');
    return reply
      .code(204)
      .header('access-control-allow-methods', ALLOWED_METHODS)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS)
      .send();
  });
}
