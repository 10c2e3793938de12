/**
 * A platform store URL as it may be shown (/settings, start-up errors): its passwords replaced by `***`.
 * pg reads a password from the user-info part and from the `password` and `sslpassword` query parameters,
 * so all three are masked. pg also takes URLs WHATWG's parser refuses (`postgresql://u:pw@/db?host=/run`,
 * a socket with an empty host): their user-info password is cut by pattern, everything up to the last `@`.
 */
const MASK = '***';
/** Query parameters pg reads a secret from, by their decoded name: `pass%77ord` is `password` to pg. */
const SECRET_PARAMETERS = new Set(['password', 'sslpassword']);

export function printableStoreUrl(url: string): string {
  return withoutSecretParameters(withoutUserPassword(url));
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

/** The query's secret parameters masked; the rest of the URL is left as written. */
function withoutSecretParameters(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const hash = url.indexOf('#', queryStart);
  const queryEnd = hash < 0 ? url.length : hash;
  const parameters = url
    .slice(queryStart + 1, queryEnd)
    .split('&')
    .map((parameter) => {
      const equals = parameter.indexOf('=');
      const name = equals < 0 ? parameter : parameter.slice(0, equals);
      return SECRET_PARAMETERS.has(decodedName(name).toLowerCase()) ? `${name}=${MASK}` : parameter;
    });
  return `${url.slice(0, queryStart + 1)}${parameters.join('&')}${url.slice(queryEnd)}`;
}

/** A parameter name as a query string's reader decodes it (`+` a space, %-escapes); as written when they are malformed. */
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
