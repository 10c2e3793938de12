/**
 * A platform store URL as it may be shown (/settings, start-up errors): its passwords replaced by `***`.
 * pg reads a password from the user-info part and from the `password` and `sslpassword` query parameters,
 * so all three are masked. pg also takes URLs WHATWG's parser refuses (`postgresql://u:pw@/db?host=/run`,
 * a socket with an empty host): their user-info password is cut by pattern, everything up to the last `@`.
 */
const MASK = '***';
/** A `password` or `sslpassword` query parameter's value (the rest of the query is left as written). */
const SECRET_PARAMETER = /([?&](?:ssl)?password=)[^&#]*/gi;

export function printableStoreUrl(url: string): string {
  return withoutUserPassword(url).replace(SECRET_PARAMETER, `$1${MASK}`);
}

function withoutUserPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = MASK;
    return parsed.href;
  } catch {
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:).*@/i, `$1${MASK}@`);
  }
}
