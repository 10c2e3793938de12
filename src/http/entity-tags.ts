/**
 * Entity tags in the conditional request fields (RFC 9110 §8.8.3, §13.1). If-None-Match, for every route
 * that answers 304 and for the /v1 writes, compares weakly: `W/"x"` names the same representation as `"x"`.
 * If-Match compares strongly (§13.1.1): a weak tag never matches. A client may send one tag, a list of
 * tags, or `*` (any current representation).
 */

/** A list member: `*`, or an entity tag with its optional weak prefix (a quoted tag may hold a comma or a `*`). */
const MEMBER = /(\*)|(W\/)?("[^"]*")/g;

/** What a conditional field lists: `*`, or its entity tags (opaque tags with their quotes). */
interface EntityTagList {
  any: boolean;
  tags: { weak: boolean; opaque: string }[];
}

export function entityTagList(header: string): EntityTagList {
  const list: EntityTagList = { any: false, tags: [] };
  for (const [, any, weak, opaque] of header.matchAll(MEMBER)) {
    if (any !== undefined) list.any = true;
    else list.tags.push({ weak: weak !== undefined, opaque: opaque! });
  }
  return list;
}

/** Whether an If-None-Match header names this entity tag (weak comparison), or any (`*`). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const { any, tags } = entityTagList(header);
  const opaque = etag.replace(/^W\//, '');
  return any || tags.some((tag) => tag.opaque === opaque);
}

/** Whether a list names this strong entity tag by the strong comparison: neither side weak, the same opaque tag. */
export function namesStrongly({ tags }: EntityTagList, etag: string): boolean {
  return !etag.startsWith('W/') && tags.some((tag) => !tag.weak && tag.opaque === etag);
}
