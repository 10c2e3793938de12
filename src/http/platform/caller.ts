/** The authenticated caller of each request, identified once whoever asks first (the rate limit or a route's guard). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AuthenticationError } from '../../platform/errors.js';
import type { Identity, Platform } from '../../platform/index.js';
import { principalKey } from '../../platform/identities.js';
import { renderCallerOf, type RenderCaller } from '../../platform/render-queue.js';
import { clientKey } from '../client-address.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the preParsing hook of `identifyCallers`; null on routes outside /v1. */
    caller: Identity | null;
  }
}

/**
 * Node keeps the first of two Authorization headers and drops the other, so which credentials counted
 * would be whichever a proxy or client put first: such a request is refused instead.
 */
function sentAuthorizationTwice(request: FastifyRequest): boolean {
  const { rawHeaders } = request.raw;
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'authorization' && ++seen > 1) return true;
  return false;
}

/** Each request's identification, kept so that a JWT is verified (and a token digested) once per request. */
const identifications = new WeakMap<FastifyRequest, Promise<Identity>>();

/**
 * The caller behind the request's Authorization header; rejects with AuthenticationError (401) for a
 * bad token. The rate limit's key and the permission checks both ask: the first call identifies.
 */
export function identifyRequest(platform: Platform, request: FastifyRequest): Promise<Identity> {
  let identification = identifications.get(request);
  if (identification === undefined) {
    identification = sentAuthorizationTwice(request)
      ? Promise.reject(new AuthenticationError('InvalidAccessTokenFormat', 'The Authorization header must be sent once.'))
      : platform.identify(request.headers.authorization);
    identifications.set(request, identification);
  }
  return identification;
}

/**
 * Rate-limit identity: the user a bearer token identifies (never the token: a user with several file
 * tokens, or a fresh JWT from the identity provider per request, still has one budget), else the
 * client address (an IPv6 one as its /64: clientKey). Unknown and invalid tokens count against the
 * address: otherwise each made-up token would open a fresh budget and a flood of them would never be limited.
 */
export async function rateLimitKey(request: FastifyRequest, platform: Platform | undefined): Promise<string> {
  const byAddress = `ip:${clientKey(request.ip)}`;
  if (!platform || !/^Bearer\s+\S/i.test(request.headers.authorization ?? '')) return byAddress;
  const identity = await identifyRequest(platform, request).catch(() => null);
  return identity?.subject.type === 'User' ? `user:${principalKey(identity.subject)}` : byAddress;
}

/**
 * Decorates the requests of this context with their caller and adds the hook that identifies them:
 * 401 on a bad token, before any body is parsed, but after the rate limit (a route-level onRequest
 * hook), so floods of bad tokens are limited too.
 */
export function identifyCallers(app: FastifyInstance, platform: Platform): void {
  app.decorateRequest('caller', null);
  app.addHook('preParsing', async (request, _reply, payload) => {
    request.caller = await identifyRequest(platform, request);
    return payload;
  });
}

export function callerOf(request: FastifyRequest): Identity {
  if (!request.caller) throw new Error('caller not identified: identifyCallers must be installed on this context');
  return request.caller;
}

/** Whose turn a rendering for this request takes on the render threads: its user, or an anonymous caller's address. */
export function renderCallerOfRequest(request: FastifyRequest): RenderCaller {
  return renderCallerOf(callerOf(request), clientKey(request.ip));
}
