/**
 * The parsers of the settings' values: each reads the text of a flag or an environment variable, and refuses one it
 * cannot take with a ConfigError naming the setting. Those with bounds carry them (`range`), so --help can state them.
 */
import { isIP } from 'node:net';
import { parseProjectRef } from '../platform/refs.js';
import { printableStoreUrl } from '../platform/store/printable-url.js';
import { booleanOfWord } from '../text/boolean-words.js';
import { ConfigError } from './error.js';

/** A parser that knows its bounds, so --help can state them. */
function bounded<T>(range: string, parse: (raw: string, name: string) => T) {
  return Object.assign(parse, { range });
}

/**
 * Plain decimal notation only: Number() would read "" and "  " as 0 (an empty PORT a random port, an empty RATE_LIMIT
 * no limit) and accept 0x50, 1e1 and +1.5. No setting takes a number below 0, so no sign either.
 */
const INTEGER_TEXT = /^\d+$/;
const DECIMAL_TEXT = /^(\d+\.?\d*|\.\d+)$/;

export function integer(min: number, max: number) {
  return bounded(`${min} to ${max}`, (raw: string, name: string): number => {
    const value = INTEGER_TEXT.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
    }
    return value;
  });
}

export function decimal(min: number, max: number) {
  return bounded(`${min} to ${max}`, (raw: string, name: string): number => {
    const value = DECIMAL_TEXT.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a number between ${min} and ${max}, got "${raw}"`);
    }
    return value;
  });
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 };
/** The largest size a number holds exactly (2^53 - 1 bytes), in the largest unit. */
const MAX_SIZE_SHOWN = `${Math.floor(Number.MAX_SAFE_INTEGER / 1024 ** 4)}TiB`;

/** A size in bytes, or with a binary unit as --help shows the defaults (`1GiB`, `512 MiB`, `1.5GiB`). */
export function byteSize(min: number, minShown: string) {
  return bounded(`at least ${minShown}`, (raw: string, name: string): number => {
    const match = /^(\d+(?:\.\d+)?)\s*([kmgt]ib|b)?$/i.exec(raw.trim());
    const unit = match ? BYTE_UNITS[(match[2] ?? '').toLowerCase()]! : NaN;
    // A fraction of a unit is rounded down to whole bytes; a fraction of a byte is refused.
    const value = unit === 1 ? Number(match![1]) : Math.floor(Number(match?.[1]) * unit);
    if (value > Number.MAX_SAFE_INTEGER) throw new ConfigError(`${name} must be a size of at most ${MAX_SIZE_SHOWN}, got "${raw}"`);
    if (!Number.isSafeInteger(value) || value < min) {
      throw new ConfigError(`${name} must be a size of at least ${minShown}, in bytes or with a unit (KiB, MiB, GiB, TiB; e.g. 1GiB), got "${raw}"`);
    }
    return value;
  });
}

/** A value that may not be blank: an empty HOST would listen on every interface, an empty DATA_DIR use the working directory. */
export function text(raw: string, name: string): string {
  if (raw.trim() === '') throw new ConfigError(`${name} must not be empty`);
  return raw;
}

/** A path, unset when empty; one of only white space is refused: taken as a file name, it failed only when the file was first used. */
export function optionalPath(raw: string, name: string): string | null {
  if (raw === '') return null;
  if (raw.trim() === '') throw new ConfigError(`${name} must not be only white space (leave it empty to unset it)`);
  return raw;
}

/** `lmdb`, or a PostgreSQL URL (TCP, or the unix-socket form `postgresql:///db?host=/var/run/postgresql`). */
export function platformStore(raw: string, name: string): string {
  if (raw === 'lmdb') return raw;
  if (!/^postgres(ql)?:\/\/[^\s]*$/.test(raw)) throw new ConfigError(`${name} must be 'lmdb' or a postgresql:// URL, got "${printableStoreUrl(raw)}"`);
  // Whether PostgreSQL's client can read it is asked when serve starts (run-command.ts): its parser is a package,
  // which the start decision the executable bundles may not load.
  return raw;
}

export function boolean(raw: string, name: string): boolean {
  const value = booleanOfWord(raw);
  if (value !== undefined) return value;
  throw new ConfigError(`${name} must be true or false (or 1/0, yes/no, on/off), got "${raw}"`);
}

export function oneOf<T extends string>(...values: T[]) {
  return (raw: string, name: string): T => {
    if ((values as string[]).includes(raw)) return raw as T;
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  };
}

/** `org/project`, as the platform names projects. */
export function projectReference(raw: string, name: string): string {
  if (parseProjectRef(raw.replace(/^\//, '')) === null) throw new ConfigError(`${name} must be org/project (letters, digits, _ and -), got "${raw}"`);
  return raw;
}

/**
 * Where clients reach the server: every id and link is this text followed by `/v1/...`, so a
 * query, a fragment or user info would end up inside every id. A path is kept (a proxy serving
 * the server under a prefix); trailing slashes are dropped where it is used.
 */
export function publicUrl(raw: string, name: string): string | null {
  if (raw === '') return null;
  let parsed: URL | null = null;
  try {
    parsed = new URL(raw);
  } catch {
    // reported below
  }
  if (!parsed || /\s/.test(raw) || !/^https?:$/.test(parsed.protocol) || raw.includes('?') || raw.includes('#') || parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(`${name} must be an http:// or https:// URL, optionally with a path, without user info, query or fragment, got "${raw}"`);
  }
  return raw;
}

/** Comma-separated web origins (`https://host[:port]`), or `*` for any origin. */
export function originList(raw: string, name: string): string[] {
  const origins = raw.split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      // Browsers send the origin lowercased and without the scheme's default port: name that form when it is the only difference.
      const written = parsed && /^https?:$/.test(parsed.protocol) && parsed.href === `${parsed.origin}/` ? `; browsers send it as ${parsed.origin}` : '';
      throw new ConfigError(`${name} must list origins such as https://app.example:8443 (scheme, host, optional port; no path), got "${origin}"${written}`);
    }
  }
  return origins;
}

/** Ranges @fastify/proxy-addr knows by name: loopback (127.0.0.1/8, ::1), linklocal, uniquelocal (10/8, 172.16/12, 192.168/16, fc00::/7). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * The reverse proxies whose X-Forwarded-For is believed (comma-separated addresses, CIDR ranges or
 * range names), as fastify's trustProxy takes them; empty or `false` = none. Trusting every sender
 * (`true`, `*`, a /0 range) and hop counts are refused: a client reaching the server directly could
 * then name any address in the header, and take a fresh rate limit and in-flight share with each.
 */
export function proxyList(raw: string, name: string): string[] {
  if (/^\s*(false)?\s*$/i.test(raw)) return [];
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    if (PROXY_RANGE_NAMES.includes(entry)) continue;
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const prefixFits = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128));
    if (family !== 0 && rest.length === 0 && prefixFits) continue;
    if (/^(true|\*|all)$/i.test(entry) || (family !== 0 && /^0+$/.test(prefix ?? ''))) {
      throw new ConfigError(`${name} must name the proxies to trust: "${entry}" trusts every sender, so any client could choose its address with X-Forwarded-For`);
    }
    if (/^\d+$/.test(entry)) throw new ConfigError(`${name} takes the proxies' addresses, not a hop count ("${entry}"): a count cannot tell who sent X-Forwarded-For`);
    throw new ConfigError(
      `${name} must list proxy addresses or CIDR ranges, comma-separated (e.g. 10.0.0.7, 10.0.0.0/8, ::1, or loopback, linklocal, uniquelocal), got "${entry}"`,
    );
  }
  return entries;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a longer one fires after 1 ms instead. */
const MAX_DURATION_MS = 24 * 86_400_000;

/** How --help and messages write a duration bound: `100ms`, `1s`, `30m`, `24d`. */
function shownDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms / 1000}s`;
}

function durationRange(minMs: number, maxMs: number): string {
  return `${shownDuration(minMs)} to ${shownDuration(maxMs)}`;
}

/** Parses durations such as `5h`, `30m`, `90s`, `1h30m` or a bare number of seconds into milliseconds, from `minMs` to `maxMs` (24 days at most). */
export function parseDuration(raw: string, name = 'duration', minMs = 1, maxMs = MAX_DURATION_MS): number {
  // A bare number counts seconds.
  const text = /^\d+$/.test(raw.trim()) ? `${raw.trim()}s` : raw.trim();
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== text) {
    throw new ConfigError(`${name} must be a duration such as 5h, 30m or 90s, got "${raw}"`);
  }
  const millis = parts.reduce((sum, p) => sum + Number(p[1]) * DURATION_UNITS[p[2]!]!, 0);
  if (millis < minMs || millis > maxMs) {
    throw new ConfigError(`${name} must be from ${durationRange(minMs, maxMs)}, got "${raw}"`);
  }
  return millis;
}

/** A duration setting from `minMs` to `maxMs`. */
export function durationFrom(minMs: number, maxMs = MAX_DURATION_MS) {
  return bounded(durationRange(minMs, maxMs), (raw: string, name: string): number => parseDuration(raw, name, minMs, maxMs));
}

export const duration = durationFrom(1);

export function idPrefix(raw: string, name: string): string | null {
  if (raw === '') return null;
  // Ids travel in URLs (resource ids of the literature project): keep prefixes to URL-safe characters.
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(raw)) throw new ConfigError(`${name} must be 1 to 64 letters, digits or . _ : -, got "${raw}"`);
  return raw;
}

export const mergeFactor = bounded('0, or 2 to 1000', (raw: string, name: string): number => {
  const value = INTEGER_TEXT.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || (value !== 0 && (value < 2 || value > 1000))) {
    throw new ConfigError(`${name} must be 0 (never merge automatically) or an integer from 2 to 1000, got "${raw}"`);
  }
  return value;
});
