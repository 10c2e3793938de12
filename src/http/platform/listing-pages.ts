/** The pages of /v1 listings: the `_next` link, and the answer of the filtered resource and file listings. */
import type { FilterRequest } from '../../platform/listing-filter.js';
import { listingPage } from '../../platform/metadata.js';
import type { ListedState } from '../../platform/revisions.js';
import type { SchemaType } from '../typed.js';
import { MAX_LISTING_FROM, type filteredListingQuery } from './schemas.js';

/**
 * The absolute URL of the page after `query`'s (same path and parameters, `from` advanced by `size`), when
 * entries follow it and a listing takes its `from`: entries past MAX_LISTING_FROM + `size` are not paged to.
 */
export function nextPageLink(baseUri: string, path: string, query: { from: number; size: number }, total: number): string | undefined {
  const from = query.from + query.size;
  if (from >= total || from > MAX_LISTING_FROM) return undefined;
  const parameters = new URLSearchParams({ from: String(from), size: String(query.size) });
  for (const [name, value] of Object.entries(query)) if (value !== undefined && !parameters.has(name)) parameters.set(name, String(value));
  return `${baseUri}${path}?${parameters}`;
}

/**
 * The answer of the resource or file listing at `path`: the page `list` gives for the query's `from`, `size`
 * and filters, `_next` linking the page after it.
 */
export async function filteredListingPage(
  baseUri: string,
  path: string,
  query: SchemaType<typeof filteredListingQuery>,
  list: (from: number, size: number, request: FilterRequest) => Promise<{ total: number; states: readonly ListedState[] }>,
) {
  const { from, size, ...filters } = query;
  const page = await list(from, size, { filters, baseUri });
  return listingPage(page, baseUri, nextPageLink(baseUri, path, query, page.total));
}
