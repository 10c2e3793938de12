/**
 * Accept-header negotiation (RFC 9110): each offer gets the quality of the
 * most specific media range matching it; the highest quality wins, then the
 * more specific match, then the order of the offers. A missing header is `*\/*`.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { weightedMembers } from './weighted-list.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route chooses its representation by Accept: every one of its answers says so (varyAnswersOfNegotiatingRoutes). */
    variesByAccept?: boolean;
  }
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/**
 * Legacy names of ZIP that clients send (the reference's own docs use `application/x-zip`). A map: a lookup in an
 * object would find its prototype's properties (`Accept: constructor` a 500 on every negotiating route).
 */
const ALIASES = new Map([
  ['application/x-zip', 'application/zip'],
  ['application/x-zip-compressed', 'application/zip'],
]);

export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [{ type: '*', subtype: '*', q: 1 }];
  return weightedMembers(header).flatMap(({ name: mediaType, q }) => {
    const normalized = ALIASES.get(mediaType) ?? mediaType;
    const slash = normalized.indexOf('/');
    if (slash <= 0 || slash === normalized.length - 1) return [];
    return [{ type: normalized.slice(0, slash), subtype: normalized.slice(slash + 1), q }];
  });
}

/** The quality and specificity (2 exact, 1 `type/*`, 0 `*\/*`) the ranges give an offer; null when none matches. */
export function rank(ranges: MediaRange[], offer: string): { q: number; specificity: number } | null {
  const [type, subtype] = offer.split('/');
  let best: { q: number; specificity: number } | null = null;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' ? 0 : -1;
    if (specificity >= 0 && (best === null || specificity > best.specificity)) best = { q: range.q, specificity };
  }
  return best;
}

/** The best offer for the Accept header, or null when none is acceptable. */
export function negotiate<T extends string>(header: string | undefined, offers: readonly T[]): T | null {
  const ranges = parseAccept(header);
  let chosen: { offer: T; q: number; specificity: number } | null = null;
  for (const offer of offers) {
    const m = rank(ranges, offer);
    if (m === null || m.q === 0) continue;
    if (chosen === null || m.q > chosen.q || (m.q === chosen.q && m.specificity > chosen.specificity)) chosen = { offer, ...m };
  }
  return chosen?.offer ?? null;
}

/**
 * Tells caches that the answer depends on the request's Accept (RFC 9110 §12.5.5), so that one client's
 * representation is not served to another asking for a different one. Appended to the Vary already set
 * (CORS's `Origin`, set on the raw response, which the reply's own header would replace).
 */
export function varyOnAccept(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const names = (Array.isArray(current) ? current : current === undefined ? [] : [String(current)])
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.some((name) => name === '*' || name.toLowerCase() === 'accept')) return;
  reply.header('vary', [...names, 'Accept'].join(', '));
}

/**
 * `Vary: Accept` on every answer of a route marked `variesByAccept`, refusals included: set by each handler as it
 * starts, it would reach the refusals made in the handler (a 404 of a file's content, 406, 412) and not those made
 * before it (401, a 400 of the query), so that /openapi.json could declare it on neither.
 */
export function varyAnswersOfNegotiatingRoutes(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    if (request.routeOptions.config.variesByAccept === true) varyOnAccept(reply);
  });
}
