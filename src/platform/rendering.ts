/**
 * The representations of a resource: its source as submitted, the source
 * annotated with metadata, JSON-LD compacted or expanded, N-Triples, N-Quads
 * and Graphviz dot. Resources are processed with the project's `@base` and
 * `@vocab` as defaults, so payloads without a context still mean something.
 */
import { METADATA_CONTEXT } from './contexts.js';
import { type JsonObject, type Quad, compact, expand, toQuads } from './jsonld.js';
import { markWhiteSpaceInIris, unmarkQuad } from './iri-whitespace.js';

export interface ResourceView {
  id: string;
  source: JsonObject;
  /** The `_`-prefixed metadata fields. */
  metadata: JsonObject;
  base: string;
  vocab: string;
}

export const FORMATS = ['source', 'annotated-source', 'compacted', 'expanded', 'n-triples', 'n-quads', 'dot'] as const;
export type Format = (typeof FORMATS)[number];

export function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}

export const FORMAT_MEDIA_TYPES: Record<Format, string> = {
  source: 'application/ld+json',
  'annotated-source': 'application/ld+json',
  compacted: 'application/ld+json',
  expanded: 'application/ld+json',
  'n-triples': 'application/n-triples',
  'n-quads': 'application/n-quads',
  dot: 'text/vnd.graphviz',
};

/** The JSON representations as values. */
export async function renderJson(view: ResourceView, format: 'source' | 'annotated-source' | 'compacted' | 'expanded'): Promise<unknown> {
  switch (format) {
    case 'source':
      return view.source;
    case 'annotated-source': {
      const source = withoutMetadata(view.source);
      return { ...source, '@context': [...contextsOf(view.source), METADATA_CONTEXT], ...idEntries(source, view.id), ...view.metadata };
    }
    case 'compacted':
      return compact(processable(view), [{ '@vocab': view.vocab }, ...contextsOf(view.source), METADATA_CONTEXT]);
    case 'expanded':
      return expand(processable(view));
  }
}

/** Any representation as text: JSON printed for people (sorted keys, 2-space indent), RDF as lines. */
export async function renderText(view: ResourceView, format: Format): Promise<string> {
  switch (format) {
    case 'n-triples':
      return nTriples(await dataset(view));
    case 'n-quads':
      return nQuads(await dataset(view));
    case 'dot':
      return dot(view.id, await dataset(view));
    default:
      return prettyJson(await renderJson(view, format));
  }
}

/** The document every processed representation starts from: source, id and metadata under one context. */
function processable(view: ResourceView): JsonObject {
  const source = withoutMetadata(view.source);
  return {
    ...source,
    '@context': [{ '@base': view.base, '@vocab': view.vocab }, ...contextsOf(view.source), METADATA_CONTEXT],
    ...idEntries(source, view.id),
    ...view.metadata,
  };
}

/**
 * The resource's id under every key the payload names it with, or under `@id` when it names it with none:
 * adding `@id` beside an alias of it would be two ids (JSON-LD's "colliding keywords").
 */
function idEntries(source: JsonObject, id: string): JsonObject {
  const keys = idKeys(source);
  return Object.fromEntries((keys.length > 0 ? keys : ['@id']).map((key) => [key, id]));
}

/** The `@type` IRIs of the node `id` in an expanded document (a list of nodes); none when it has none. */
export function nodeTypes(expanded: unknown, id: string): string[] {
  const nodes = Array.isArray(expanded) ? (expanded as { '@id'?: unknown; '@type'?: unknown }[]) : [];
  const types = nodes.find((node) => node['@id'] === id)?.['@type'];
  return Array.isArray(types) ? types.filter((type): type is string => typeof type === 'string') : [];
}

/**
 * The keys a payload names its resource with: `@id`, and the terms its own contexts alias to `@id`
 * (`"id": "@id"` or `"id": {"@id": "@id"}`). Remote contexts are refused, so inline ones are all there
 * are; as in context processing, a later definition of a term or a null context undoes an alias.
 * `_`-prefixed keys are the platform's (see withoutMetadata) and never name the resource.
 */
export function idKeys(source: JsonObject): string[] {
  let aliases = new Set<string>();
  for (const context of contextsOf(source)) {
    if (context === null) aliases = new Set();
    if (!isObject(context)) continue;
    for (const [term, definition] of Object.entries(context)) {
      const target = isObject(definition) ? definition['@id'] : definition;
      if (target === '@id') aliases.add(term);
      else aliases.delete(term);
    }
  }
  return ['@id', ...aliases].filter((key) => key in source && !key.startsWith('_'));
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contextsOf(source: JsonObject): unknown[] {
  const context = source['@context'];
  if (context === undefined || context === null) return [];
  return Array.isArray(context) ? context : [context];
}

/** The platform owns `_`-prefixed fields; a payload's own are replaced by the real metadata. */
function withoutMetadata(source: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(source).filter(([key]) => !key.startsWith('_')));
}

function prettyJson(value: unknown): string {
  return `${JSON.stringify(orderKeys(value), null, 2)}\n`;
}

const FIRST_KEYS = ['@context', '@id', '@type'];

/** `@context`, `@id`, `@type` first, `_`-prefixed keys last, others in between, each group alphabetically. */
function orderKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(orderKeys);
  if (typeof value !== 'object' || value === null) return value;
  const rank = (key: string) => (FIRST_KEYS.includes(key) ? FIRST_KEYS.indexOf(key) : key.startsWith('_') ? 4 : 3);
  const keys = Object.keys(value).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((key) => [key, orderKeys((value as JsonObject)[key])]));
}

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';

/** The resource as RDF, less the literals N-Triples cannot write (see writable). */
async function dataset(view: ResourceView): Promise<Quad[]> {
  const document = processable(view);
  let dropped = false;
  const quads = await toQuads(document, () => (dropped = true));
  if (!dropped) return quads.filter(writable);
  // Some IRI held white space (or was relative after all): again, with white space carried past the library.
  const marked = markWhiteSpaceInIris(await expand(document));
  return (await toQuads(marked)).map(unmarkQuad).filter(writable);
}

/** The N-Triples LANGTAG production: a tag has no escapes, so one outside it would let a payload write past its literal. */
const LANGTAG = /^[a-zA-Z]+(-[a-zA-Z0-9]+)*$/;

/**
 * jsonld.js only warns about an ill-formed `@language` and keeps it, where JSON-LD 1.1's Object to RDF
 * Conversion drops the literal: so do we, for the tags N-Triples could not write.
 */
function writable(quad: Quad): boolean {
  return !quad.object.language || LANGTAG.test(quad.object.language);
}

/**
 * Blank node labels are the `b0`, `b1`… jsonld.js issues for every blank node (payload labels are
 * never kept), always valid BLANK_NODE_LABELs, so only IRIs and literals need escaping.
 */
function term(t: Quad['object']): string {
  switch (t.termType) {
    case 'NamedNode':
      return iri(t.value);
    case 'BlankNode':
      return `_:${t.value}`;
    default: {
      const literal = `"${escapeLiteral(t.value)}"`;
      if (t.language) return `${literal}@${t.language}`;
      const datatype = t.datatype?.value;
      return datatype && datatype !== XSD_STRING && datatype !== RDF_LANG_STRING ? `${literal}^^${iri(datatype)}` : literal;
    }
  }
}

/** What an N-Triples IRIREF cannot hold as such: #x00-#x20 < > " { } | ^ ` \ */
const IRI_FORBIDDEN = /[\u0000-\u0020<>"{}|^`\\]/g;

/**
 * An IRIREF. jsonld.js keeps any IRI without whitespace, so one may hold `>` (which would end it early
 * and let a payload write statements of its own) or other forbidden characters: those are written as
 * UCHAR escapes, which parsers decode back to the same IRI.
 */
function iri(value: string): string {
  return `<${value.replace(IRI_FORBIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)}>`;
}

/** Canonical RDF 1.1 N-Triples: only the four characters a STRING_LITERAL_QUOTE cannot hold are escaped. */
function escapeLiteral(text: string): string {
  return text.replace(/[\\"\n\r]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r' })[c]!);
}

function sortedUnique(lines: string[]): string {
  return [...new Set(lines)].sort().join('');
}

function nQuads(quads: Quad[]): string {
  return sortedUnique(
    quads.map((q) => {
      const graph = q.graph.termType === 'DefaultGraph' ? '' : ` ${term(q.graph)}`;
      return `${term(q.subject)} ${term(q.predicate)} ${term(q.object)}${graph} .\n`;
    }),
  );
}

/** N-Triples has no graphs: statements of named graphs are merged into one graph. */
function nTriples(quads: Quad[]): string {
  return sortedUnique(quads.map((q) => `${term(q.subject)} ${term(q.predicate)} ${term(q.object)} .\n`));
}

function dot(id: string, quads: Quad[]): string {
  const quote = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;
  const node = (t: Quad['object']) => quote(t.termType === 'BlankNode' ? `_:${t.value}` : t.value);
  const edges = [...new Set(quads.map((q) => `  ${node(q.subject)} -> ${node(q.object)} [label = ${quote(q.predicate.value)}]\n`))];
  return `digraph ${quote(id)} {\n${edges.sort().join('')}}\n`;
}
