/**
 * The JSON-LD operations the platform needs, on the `jsonld` library, always
 * with the local document loader. Failures become InvalidJsonLdFormat.
 */
import jsonld from 'jsonld';
import { localDocumentLoader } from './contexts.js';
import { rejections } from './errors.js';

export type JsonObject = Record<string, unknown>;

export interface Quad {
  subject: Term;
  predicate: Term;
  object: Term & { datatype?: { value: string }; language?: string };
  graph: Term;
}

interface Term {
  termType: 'NamedNode' | 'BlankNode' | 'Literal' | 'DefaultGraph';
  value: string;
}

// The library's type declarations lag behind its API (loader signature, dataset shape, url helpers).
const processor = jsonld as unknown as {
  expand(input: unknown, options: object): Promise<unknown[]>;
  compact(input: unknown, context: unknown, options: object): Promise<JsonObject>;
  toRDF(input: unknown, options: object): Promise<Quad[]>;
  url: { prependBase(base: string, reference: string): string };
};
const options = { documentLoader: localDocumentLoader };

/** `reference` resolved against `base` as the processor resolves relative IRIs (RFC 3986, characters kept as written). */
export function resolveReference(base: string, reference: string): string {
  return processor.url.prependBase(base, reference);
}

export async function expand(document: unknown): Promise<unknown[]> {
  return guarded(() => processor.expand(document, options));
}

export async function compact(document: unknown, context: unknown): Promise<JsonObject> {
  return guarded(() => processor.compact(document, context, options));
}

/** The statements of `document`; `onDropped` is told of each one jsonld.js drops for naming a relative IRI. */
export async function toQuads(document: unknown, onDropped: () => void = () => {}): Promise<Quad[]> {
  const dropped = () => onDropped();
  const eventHandler = Object.fromEntries(DROPPING_EVENTS.map((code) => [code, dropped]));
  return guarded(() => processor.toRDF(document, { ...options, eventHandler }));
}

/** The events of statements toRDF leaves out because an IRI of theirs is not absolute. */
const DROPPING_EVENTS = ['relative graph reference', 'relative subject reference', 'relative predicate reference', 'relative object reference'];

async function guarded<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw rejections.invalidJsonLd(describe(error));
  }
}

/** jsonld nests the root cause (e.g. the loader's "not bundled") in `details.cause`. */
function describe(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && messages.length < 4) {
    messages.push(current.message);
    const details = (current as { details?: { cause?: unknown } }).details;
    current = details?.cause ?? (current as { cause?: unknown }).cause;
  }
  return messages.join(': ') || String(error);
}
