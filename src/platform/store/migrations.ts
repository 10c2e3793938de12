/**
 * The PostgreSQL schema, as numbered migrations the server applies at start
 * (under an advisory lock, so replicas starting together apply each once).
 * Each platform table holds one kind of record, keyed like the LMDB store:
 * the key tuple as text[] ("C" collation: byte order, as LMDB), its JSON form
 * (which elements are numbers), and the record as JSON text (kept verbatim,
 * so payloads keep their key order); a payload is its own JSON text.
 */
import type pg from 'pg';
import type { TableName } from './store.js';

export const sqlTable = (name: TableName) => `litserve_${name.replace(/-/g, '_')}`;

const createTable = (name: TableName) => `CREATE TABLE ${sqlTable(name)} (key text[] COLLATE "C" PRIMARY KEY, key_json text NOT NULL, value text NOT NULL);`;

/** Each migration names its own tables: a table added later gets a migration of its own, never a change to an earlier one. */
const MIGRATIONS: readonly string[] = [
  (['orgs', 'projects', 'literature-project', 'acls', 'heads', 'revisions', 'archives'] as const).map(createTable).join('\n'),
  // Payload texts apart from the revisions' metadata (revisions.ts).
  createTable('payloads'),
  // Each project's entities by kind, so a listing pages and counts through the index (revisions.ts), filled
  // from the heads here at once rather than one insert per entity at start.
  `${createTable('listings')}
INSERT INTO ${sqlTable('listings')} (key, key_json, value)
  SELECT ARRAY[key[1], value::json->>'kind', key[2]], json_build_array(key[1], value::json->>'kind', key[2])::text, value::json->>'rev'
  FROM ${sqlTable('heads')};`,
  // Payload texts stored as JSON strings of themselves become the texts as they are (TEXT_TABLES).
  `UPDATE ${sqlTable('payloads')} SET value = value::json #>> '{}';`,
  // The superseded revisions of organizations and projects, keyed [label or org/project, rev] (past-states.ts).
  (['org-revisions', 'project-revisions'] as const).map(createTable).join('\n'),
  // The archive quota's ledger (archive/quota.ts), counted in the store so that every replica shares the bounds;
  // the first server to open the store fills it from the archives.
  (['archive-holds', 'archive-totals'] as const).map(createTable).join('\n'),
  // The store's identity, which the file contents' directory records (store-id.ts, blob-owner.ts).
  createTable('store-id'),
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The advisory lock replicas starting together migrate under. Advisory locks belong to the database, so
 * the key names the schema: a server starting on another schema of the same database does not wait.
 */
export const MIGRATION_LOCK_KEY_SQL = "hashtext(current_schema() || ' litserve-migrations')";

const CREATE_VERSION_TABLE = 'CREATE TABLE IF NOT EXISTS litserve_schema_version (version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())';

/** The schema's version (0 for a schema without litserve's tables), read without writing anything. */
async function storedVersion(client: pg.PoolClient): Promise<number> {
  const { rows: found } = await client.query<{ exists: boolean }>("SELECT to_regclass('litserve_schema_version') IS NOT NULL AS exists");
  if (!found[0]!.exists) return 0;
  const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM litserve_schema_version');
  return rows[0]?.version ?? 0;
}

/** Brings the schema to SCHEMA_VERSION; refuses a database a newer server migrated. */
export async function migrate(client: pg.PoolClient): Promise<{ from: number; to: number }> {
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY_SQL})`);
    const from = await storedVersion(client);
    if (from > SCHEMA_VERSION) {
      throw new Error(
        `the platform store's PostgreSQL schema is at version ${from}, newer than this server's ${SCHEMA_VERSION}: ` +
          'a newer litserve migrated it. Run that version (or a newer one), or point --platform-store at another database.',
      );
    }
    // A schema at this version gets no statement that writes, not even a CREATE TABLE IF NOT EXISTS: a hot
    // standby refuses any, and a replica must be able to start on one (reading, its writes answered 503).
    if (from < SCHEMA_VERSION) await client.query(CREATE_VERSION_TABLE);
    for (let version = from + 1; version <= SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version - 1]!);
      await client.query('INSERT INTO litserve_schema_version (version) VALUES ($1)', [version]);
    }
    await client.query('COMMIT');
    return { from, to: SCHEMA_VERSION };
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
