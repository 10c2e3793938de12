/**
 * pg's connection settings for the store's URL, with the password found as pg finds it: the URL's
 * (user-info or `?password=`), else PGPASSWORD, else the pgpass file (PGPASSFILE or ~/.pgpass, a
 * line matching host, port, database and user, as the pgpass package matches), else none. The file is
 * read here, as pg advises: read by pg itself, it prints a DeprecationWarning on every start.
 */
import type pg from 'pg';
import { parse } from 'pg-connection-string';
import pgpass from 'pgpass';

/** A database that does not answer a connection attempt (host down, packets dropped) fails the request after this, rather than at the request timeout. */
export const CONNECT_TIMEOUT_MS = 10_000;

type ConnectionParameters = Parameters<typeof pgpass>[0];

/**
 * Asked by pg when the server wants a password, with the connection's parameters (host, port, database
 * and user as pg resolved them, which the pgpass file is matched against).
 */
async function passwordOf(connection: ConnectionParameters): Promise<string | undefined> {
  return process.env['PGPASSWORD'] || new Promise((resolve) => pgpass(connection, resolve));
}

export function connectionConfig(url: string): pg.ClientConfig {
  // The URL parsed as pg parses a `connectionString`: next to one, a password function would give way to the URL's password, even an empty one.
  const parsed = parse(url) as pg.ClientConfig;
  // pg's types leave out the parameters it passes, and an undefined answer (no password), which it accepts.
  return { ...parsed, password: parsed.password || (passwordOf as () => Promise<string>) };
}

/** Why PostgreSQL's client cannot read `url` (its parser's message), or null when it can. */
export function connectionUrlProblem(url: string): string | null {
  try {
    parse(url);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
