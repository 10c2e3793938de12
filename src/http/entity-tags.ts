/**
 * If-None-Match (RFC 9110 §13.1.2), for every route that answers 304. The
 * comparison is the weak one the RFC prescribes for this field: `W/"x"` names
 * the same representation as `"x"`. A client's cache may send a weak tag, a
 * list of the tags it holds, or `*` (any current representation).
 */

/** A list member: `*`, or an entity tag with its optional weak prefix (a quoted tag may hold a comma or a `*`). */
const MEMBER = /(\*)|(?:W\/)?("[^"]*")/g;

/** Whether an If-None-Match header names this entity tag, or any (`*`). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = etag.replace(/^W\//, '');
  for (const [, any, tag] of header.matchAll(MEMBER)) if (any !== undefined || tag === opaque) return true;
  return false;
}
