/**
 * The path a reverse proxy serves this server under, as the proxy says in X-Forwarded-Prefix (Traefik's
 * StripPrefix sets it; nginx setups add it by hand). Only the redirect of `/` to the page needs it: a
 * proxy mapping `https://host/base` (no last slash) to the server's `/` would otherwise send the browser
 * from `/base` to `/ui/`, outside the prefix. Every other address the server and the page build is
 * relative, so they need no prefix.
 *
 * The header is believed only from a sender in --trust-proxy, and only when it is a plain absolute path:
 * anything else (`//evil.example`, a `..` segment, spaces) would make the redirect leave the site.
 */
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyRequest } from 'fastify';

/** The proxy's prefix without its last slash (`/base`), or null when there is none to believe. */
export type PrefixReader = (request: FastifyRequest) => string | null;

const PATH_CHARACTER = String.raw`(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})`;
const ABSOLUTE_PATH = new RegExp(`^(?:/${PATH_CHARACTER}+)+/?$`);

export function forwardedPrefixReader(trustedProxies: string[]): PrefixReader {
  if (trustedProxies.length === 0) return () => null;
  const trusted = proxyAddr.compile(trustedProxies);
  return (request) => {
    const header = request.headers['x-forwarded-prefix'];
    const sender = request.raw.socket.remoteAddress;
    if (typeof header !== 'string' || sender === undefined || !trusted(sender, 0)) return null;
    const prefix = header.trim();
    if (!ABSOLUTE_PATH.test(prefix)) return null;
    // Browsers read `%2e` as a dot in these segments too.
    const segments = prefix.split('/').map((segment) => segment.replace(/%2e/gi, '.'));
    if (segments.some((segment) => segment === '.' || segment === '..')) return null;
    return prefix.replace(/\/$/, '');
  };
}
