/**
 * Identifiers are IRIs. Path segments are expanded with the project's API
 * mappings and base; payload ids are resolved against a base like any
 * relative IRI reference.
 */
import { resolveReference } from './jsonld.js';
import { hasLoneSurrogate } from '../text/unicode.js';

export interface ApiMapping {
  prefix: string;
  namespace: string;
}

/** Ids are LMDB key parts, whose total size is bounded, so they get a generous but firm limit. */
export const MAX_IRI_BYTES = 1024;

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
// Characters RFC 3987 never allows unescaped in an IRI.
const FORBIDDEN = /[\u0000-\u0020<>"{}|\\^`\u007f]/;

/** Lone surrogates (a JSON `"\ud800"`) are refused too: the store would keep another id, and `_self` could not encode it. */
export function isAbsoluteIri(value: string): boolean {
  return SCHEME.test(value) && !FORBIDDEN.test(value) && !hasLoneSurrogate(value) && Buffer.byteLength(value) <= MAX_IRI_BYTES;
}

/** The first character of `value` that no IRI may hold unescaped, or null when it holds none. */
export function forbiddenIriCharacter(value: string): string | null {
  return FORBIDDEN.exec(value)?.[0] ?? null;
}

/**
 * Resolves a relative IRI reference against `base` as JSON-LD does (RFC 3987: characters are kept as
 * written, so `café` names the same resource in a payload as in a URL path, where WHATWG URL parsing
 * would have percent-encoded it); absolute IRIs are kept as they are. Null when no IRI results.
 */
export function resolveIri(reference: string, base: string): string | null {
  const resolved = resolutionOf(reference, base);
  return isAbsoluteIri(resolved) ? resolved : null;
}

/** What `reference` resolves to against `base`, not yet checked to be an IRI. */
function resolutionOf(reference: string, base: string): string {
  if (SCHEME.test(reference)) return reference;
  // Bases such as `urn:x:` are not hierarchical; a plain suffix is the only sensible reading.
  return HIERARCHICAL.test(base) ? resolveReference(base, reference) : base + reference;
}

const HIERARCHICAL = /^[A-Za-z][A-Za-z0-9+.-]*:\//;

/** Whether a reference has no scheme: resolved against a base rather than read as an IRI or a compact IRI. */
export function isRelativeIri(reference: string): boolean {
  return !SCHEME.test(reference);
}

/**
 * Expands an id taken from a URL path segment (already percent-decoded):
 * `prefix:rest` with a mapped prefix becomes `namespace + rest`, another
 * absolute IRI is kept, a bare mapped prefix is an alias for its namespace,
 * and anything else is appended to the project base.
 */
export function expandIdSegment(segment: string, base: string, mappings: readonly ApiMapping[]): string | null {
  if (segment === '') return null;
  const expanded = expansionOf(segment, base, mappings);
  return isAbsoluteIri(expanded) ? expanded : null;
}

/** What a URL segment expands to (see expandIdSegment), not yet checked to be an IRI. */
function expansionOf(segment: string, base: string, mappings: readonly ApiMapping[]): string {
  const mapped = mappedExpansion(segment, mappings);
  if (mapped !== null) return mapped;
  if (SCHEME.test(segment)) return segment;
  const alias = mappings.find((m) => m.prefix === segment);
  return alias ? alias.namespace : base + segment;
}

/**
 * Why expandIdSegment refused `segment`, when it is for the length of its expansion: the bound counts
 * the base or namespace it is appended to, which the client does not see. Null for any other reason.
 */
export function expandedLengthProblem(segment: string, base: string, mappings: readonly ApiMapping[]): string | null {
  return lengthProblem(expansionOf(segment, base, mappings));
}

/** As expandedLengthProblem, for a reference resolveIri refused. */
export function resolvedLengthProblem(reference: string, base: string): string | null {
  return lengthProblem(resolutionOf(reference, base));
}

/** Why `iri`, an IRI but for its length, is refused; null when its length is not why. */
function lengthProblem(iri: string): string | null {
  const bytes = Buffer.byteLength(iri);
  if (bytes <= MAX_IRI_BYTES || !SCHEME.test(iri) || FORBIDDEN.test(iri) || hasLoneSurrogate(iri)) return null;
  return `expanded (the project base or mapping namespace included), it has ${bytes} bytes; an id has at most ${MAX_IRI_BYTES} bytes`;
}

/** `prefix:rest` with a mapped prefix as `namespace + rest`; any other value as it is. */
export function expandMappedPrefix(value: string, mappings: readonly ApiMapping[]): string {
  return mappedExpansion(value, mappings) ?? value;
}

/**
 * A prefix as API mappings may name it (the project schema's pattern): `_` and `.` are allowed where a URI scheme takes
 * neither: matched as a scheme, a mapping such as `my_lab` or `_x_` would be stored and never applied (its ids
 * landing under the base).
 */
const MAPPED_PREFIX = /^([A-Za-z_][A-Za-z0-9_.-]*):/;

/** `prefix:rest` of a mapped prefix as `namespace + rest`; null when `value` starts with no mapped prefix. */
export function mappedExpansion(value: string, mappings: readonly ApiMapping[]): string | null {
  const prefix = MAPPED_PREFIX.exec(value)?.[1];
  const mapping = prefix === undefined ? undefined : mappings.find((m) => m.prefix === prefix);
  return mapping ? mapping.namespace + value.slice(prefix!.length + 1) : null;
}

/** How an id appears as one URL path segment, e.g. in `_self`. */
export function encodeIdSegment(iri: string): string {
  return encodeURIComponent(iri);
}
