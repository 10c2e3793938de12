/**
 * Payloads as they are stored: JSON text. A revision read from the store
 * carries its payload's text and parses it only when something reads
 * `source`, so an archive download hands the text to a render thread as is:
 * the main thread never decodes a large payload, nor writes it out again.
 */
import type { JsonObject } from './jsonld.js';

const texts = new WeakMap<object, string>();

/** `target` with a `source` property parsed from `json` on first read; `storedJsonOf(target)` gives the text. */
export function withStoredSource<T extends object>(target: T, json: string): T & { source: JsonObject } {
  let parsed: JsonObject | undefined;
  Object.defineProperty(target, 'source', {
    enumerable: true,
    configurable: true,
    get: () => (parsed ??= JSON.parse(json) as JsonObject),
    set: (value: JsonObject) => {
      parsed = value;
      texts.delete(target);
    },
  });
  texts.set(target, json);
  return target as T & { source: JsonObject };
}

/** The stored JSON text of `target`'s `source`, when it came from the store and was not replaced since. */
export function storedJsonOf(target: object): string | undefined {
  return texts.get(target);
}

/**
 * Payloads held as objects, as the JSON text they were written out as for a render thread: a write's (for its
 * checks), an archive entry's (for its first format). A payload is never changed once parsed or read.
 */
const writtenPayloads = new WeakMap<object, string>();

/** Records the JSON text `payload` was written out as, so that storing it or sending it to a render thread again reuses it. */
export function rememberPayloadJson(payload: JsonObject, json: string): void {
  writtenPayloads.set(payload, json);
}

/** The JSON text of `target`'s `source`, when it came from the store unchanged or was written out before (rememberPayloadJson). */
export function sourceJsonOf(target: { source: object }): string | undefined {
  return storedJsonOf(target) ?? writtenPayloads.get(target.source);
}

/** `target`'s other properties, `source` left out without being read (a spread or a rest pattern would parse it). */
export function withoutSource<T extends object>(target: T): Omit<T, 'source'> {
  const copy: Record<string, unknown> = {};
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(target))) {
    if (key !== 'source') copy[key] = descriptor.value;
  }
  return copy as Omit<T, 'source'>;
}

/**
 * A copy of `target` with `changes`, its `source` never read unless needed:
 * replaced by the changes, or still in its stored text and kept so (neither
 * parsed nor written out again).
 */
export function withChanges<T extends { source: JsonObject }>(target: T, changes: Partial<T>): T {
  const copy = Object.assign(withoutSource(target), changes);
  if ('source' in changes) return copy as T;
  const json = storedJsonOf(target);
  return (json === undefined ? Object.assign(copy, { source: target.source }) : withStoredSource(copy, json)) as T;
}
