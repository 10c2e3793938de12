/**
 * The representations of a resource: its source as submitted, the source
 * annotated with metadata, JSON-LD compacted or expanded, N-Triples, N-Quads
 * and Graphviz dot. Resources are processed with the project's `@base` and
 * `@vocab` as defaults, so payloads without a context still mean something.
 */
import { METADATA_CONTEXT } from './contexts.js';
import { type JsonObject, type Quad, compact, expand, toQuads } from './jsonld.js';

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
    case 'annotated-source':
      return { ...withoutMetadata(view.source), '@context': [...contextsOf(view.source), METADATA_CONTEXT], '@id': view.id, ...view.metadata };
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
      return nTriples(await toQuads(processable(view)));
    case 'n-quads':
      return nQuads(await toQuads(processable(view)));
    case 'dot':
      return dot(view.id, await toQuads(processable(view)));
    default:
      return prettyJson(await renderJson(view, format));
  }
}

/** The document every processed representation starts from: source, id and metadata under one context. */
function processable(view: ResourceView): JsonObject {
  return {
    ...withoutMetadata(view.source),
    '@context': [{ '@base': view.base, '@vocab': view.vocab }, ...contextsOf(view.source), METADATA_CONTEXT],
    '@id': view.id,
    ...view.metadata,
  };
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

export function prettyJson(value: unknown): string {
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

function term(t: Quad['object']): string {
  switch (t.termType) {
    case 'NamedNode':
      return `<${t.value}>`;
    case 'BlankNode':
      return `_:${t.value}`;
    default: {
      const literal = `"${escapeLiteral(t.value)}"`;
      if (t.language) return `${literal}@${t.language}`;
      const datatype = t.datatype?.value;
      return datatype && datatype !== XSD_STRING && datatype !== RDF_LANG_STRING ? `${literal}^^<${datatype}>` : literal;
    }
  }
}

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
