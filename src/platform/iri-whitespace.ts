/**
 * IRIs holding white space, in RDF output. jsonld.js keeps such an IRI in the expanded form (an `@id` or an
 * `@type` with a space or a tab; a key that expands to one is dropped there, as JSON-LD says), but its toRDF
 * takes it for a relative one and drops, without a word, every statement that names it. N-Triples can write it
 * (white space as `\uXXXX`, rendering.ts), so it is carried past the library:
 * in the expanded form, each white-space character of an IRI becomes MARK and its code in four hex digits,
 * and the quads' IRIs get their characters back. MARK is a lone surrogate, which no stored payload holds
 * (writes refuse lone surrogates), so nothing else is taken for a mark.
 */
import type { Quad } from './jsonld.js';

const MARK = '\udc00';
const WHITE_SPACE = /\s/g;
const MARKED = new RegExp(`${MARK}([0-9a-f]{4})`, 'g');

const mark = (iri: string) => iri.replace(WHITE_SPACE, (c) => `${MARK}${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const unmark = (iri: string) => iri.replace(MARKED, (_, code: string) => String.fromCharCode(Number.parseInt(code, 16)));

/** Keys whose values are no IRI and hold none. */
const NOT_IRIS = new Set(['@value', '@language', '@direction', '@index']);

/** The expanded document with the white space of its IRIs (keys, `@id`, `@type`) marked. */
export function markWhiteSpaceInIris(expanded: unknown): unknown {
  if (Array.isArray(expanded)) return expanded.map(markWhiteSpaceInIris);
  if (expanded === null || typeof expanded !== 'object') return expanded;
  const marked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(expanded)) {
    if (NOT_IRIS.has(key)) marked[key] = value;
    else if (key === '@id') marked[key] = typeof value === 'string' ? mark(value) : value;
    // A node's types, or a value's datatype; keywords (`@json`) have no white space.
    else if (key === '@type') {
      marked[key] = Array.isArray(value) ? value.map((type) => (typeof type === 'string' ? mark(type) : type)) : typeof value === 'string' ? mark(value) : value;
    }
    // `@graph`, `@list`, `@set`, `@included`, and `@reverse`, whose keys are properties.
    else if (key.startsWith('@')) marked[key] = markWhiteSpaceInIris(value);
    else marked[mark(key)] = markWhiteSpaceInIris(value);
  }
  return marked;
}

/** A quad of the marked document with its IRIs as they were. */
export function unmarkQuad(quad: Quad): Quad {
  const named = <T extends { termType: string; value: string }>(term: T): T => (term.termType === 'NamedNode' ? { ...term, value: unmark(term.value) } : term);
  const object = named(quad.object);
  return {
    subject: named(quad.subject),
    predicate: named(quad.predicate),
    object: object.datatype ? { ...object, datatype: { ...object.datatype, value: unmark(object.datatype.value) } } : object,
    graph: named(quad.graph),
  };
}
