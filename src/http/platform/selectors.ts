/** `?rev=` / `?tag=` query parameters as a revision selector. */
import { PlatformError } from '../../platform/errors.js';
import { type RevisionSelector, selectorOf } from '../../platform/revisions.js';

export function selectorFrom(query: { rev?: number; tag?: string }): RevisionSelector {
  if (query.rev !== undefined && query.tag !== undefined) {
    throw new PlatformError(400, 'MalformedQueryParam', "The query parameters 'rev' and 'tag' cannot be used together.");
  }
  return selectorOf(query);
}
