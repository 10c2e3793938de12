/** The authenticated caller of each /v1 request, established before the body is read. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Identity, Platform } from '../../platform/index.js';

const callers = new WeakMap<FastifyRequest, Identity>();

/**
 * Adds the hook that identifies callers: 401 on a bad token, before any body is parsed, but after
 * the rate limit (a route-level onRequest hook), so floods of bad tokens are limited too.
 */
export function identifyCallers(app: FastifyInstance, platform: Platform): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    callers.set(request, await platform.identify(request.headers.authorization));
    return payload;
  });
}

export function callerOf(request: FastifyRequest): Identity {
  const identity = callers.get(request);
  if (!identity) throw new Error('caller not identified: identifyCallers must be installed on this context');
  return identity;
}
