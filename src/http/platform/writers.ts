/**
 * A write refuses a caller who lacks its permission before its body is read. Checked only in its handler,
 * the 403 would come after fastify had read and parsed the body (up to the route's limit): a caller sending
 * `Expect: 100-continue` would be invited to upload it first (expect-continue.ts answers 100 at the first read),
 * and every refused write would cost a body read. The check is the service's own (routes never consult the
 * ACLs); the write checks again, as the ACLs may change between the hook and the handler.
 */
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import type { Identity } from '../../platform/index.js';
import { callerOf } from './caller.js';

/**
 * A route's preParsing hook running `requirePermission` (a service's check, throwing the write's 403) for the
 * request's caller. A route's hooks run after its context's, so the caller is identified by then
 * (identifyCallers): a bad token is still answered 401 first.
 */
export function writersOnly(requirePermission: (request: FastifyRequest, caller: Identity) => void) {
  return async (request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload): Promise<RequestPayload> => {
    requirePermission(request, callerOf(request));
    return payload;
  };
}

/**
 * What a write of an organization or project does, by its query as sent (not validated yet): without
 * `rev` it creates its target, with one it changes it, as the services tell them apart.
 */
export function writeNamedBy(request: FastifyRequest): 'create' | 'change' {
  return (request.query as { rev?: unknown }).rev === undefined ? 'create' : 'change';
}
