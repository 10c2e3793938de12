/** The authenticated caller of each /v1 request, established before the body is read. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Identity, Platform } from '../../platform/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the preParsing hook of `identifyCallers`; null on routes outside /v1. */
    caller: Identity | null;
  }
}

/**
 * Decorates the requests of this context with their caller and adds the hook that identifies them:
 * 401 on a bad token, before any body is parsed, but after the rate limit (a route-level onRequest
 * hook), so floods of bad tokens are limited too.
 */
export function identifyCallers(app: FastifyInstance, platform: Platform): void {
  app.decorateRequest('caller', null);
  app.addHook('preParsing', async (request, _reply, payload) => {
    request.caller = await platform.identify(request.headers.authorization);
    return payload;
  });
}

export function callerOf(request: FastifyRequest): Identity {
  if (!request.caller) throw new Error('caller not identified: identifyCallers must be installed on this context');
  return request.caller;
}
