/**
 * A request target in absolute form (`GET http://host/path?q HTTP/1.1`, RFC 9112 §3.2.2), which a
 * server must accept, as the origin form every check of `request.url` expects (`/path?q`): which API
 * a path addresses, the health probes, CORS's shared paths, the page's redirect. Other targets are
 * returned as they are; the rest of the target is kept verbatim (no dot segment is resolved).
 */
const SCHEME_AND_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

export function originForm(target: string): string {
  if (!SCHEME_AND_AUTHORITY.test(target)) return target;
  const rest = target.replace(SCHEME_AND_AUTHORITY, '');
  return rest.startsWith('/') ? rest : `/${rest}`;
}
