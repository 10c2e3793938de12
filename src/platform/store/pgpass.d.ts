/** The `pgpass` package (pg's own dependency) ships no types: the password of the first matching line of the pgpass file, if any. */
declare module 'pgpass' {
  interface PgpassConnection {
    host?: string | null;
    port?: number | string | null;
    database?: string | null;
    user?: string | null;
  }
  export default function pgpass(connection: PgpassConnection, found: (password: string | undefined) => void): void;
}
