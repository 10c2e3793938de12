/** `?rev=` / `?tag=` query parameters as a revision selector. */
import { PlatformError } from '../../platform/errors.js';
import type { RevisionSelector } from '../../platform/revisions.js';

export function selectorFrom(query: { rev?: number; tag?: string }): RevisionSelector {
  if (query.rev !== undefined && query.tag !== undefined) {
    throw new PlatformError(400, 'MalformedQueryParam', "The query parameters 'rev' and 'tag' cannot be used together.");
  }
  if (query.rev !== undefined) return { rev: query.rev };
  if (query.tag !== undefined) return { tag: query.tag };
  return {};
}
