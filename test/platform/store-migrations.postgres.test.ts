/** The PostgreSQL schema is created and versioned at start; a database a newer server migrated is refused, unchanged. */
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { SCHEMA_VERSION } from '../../src/platform/store/migrations.js';
import { openPostgresStore } from '../../src/platform/store/postgres.js';
import { schemaUrl } from '../postgres/cluster.js';
import { testPostgresUrl } from '../postgres/project.js';

const quiet = { info: () => undefined, warn: () => undefined };

async function versions(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ version: number }>('SELECT version FROM litserve_schema_version ORDER BY version')).rows.map((r) => r.version);
  } finally {
    await client.end();
  }
}

describe('schema migrations', () => {
  test('a new database is migrated once to the current version; opening it again changes nothing', async () => {
    const url = await schemaUrl(testPostgresUrl()!, `migrations-${Date.now()}`);
    await (await openPostgresStore(url, quiet)).close();
    await (await openPostgresStore(url, quiet)).close();
    expect(await versions(url)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  test('a database at version 1 gets the payloads table at start, its records kept', async () => {
    const url = await schemaUrl(testPostgresUrl()!, `from-1-${Date.now()}`);
    await (await openPostgresStore(url, quiet)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Back to what a server of schema version 1 left: no payloads table, a record in another one.
      await client.query('DROP TABLE litserve_payloads');
      await client.query('DELETE FROM litserve_schema_version WHERE version > 1');
      await client.query(`INSERT INTO litserve_orgs (key, key_json, value) VALUES ('{lab}', '"lab"', '{"label":"lab"}')`);
      const store = await openPostgresStore(url, quiet);
      try {
        expect(await store.table('orgs').get('lab')).toEqual({ label: 'lab' });
        await store.write(() => store.table('payloads').put(['lab/p', 'r', 1], '{}'));
        expect(await store.table('payloads').get(['lab/p', 'r', 1])).toBe('{}');
      } finally {
        await store.close();
      }
      expect(await versions(url)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      await client.end();
    }
  });

  test('a database at a newer version is refused with a message naming both versions', async () => {
    const url = await schemaUrl(testPostgresUrl()!, `newer-${Date.now()}`);
    await (await openPostgresStore(url, quiet)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('INSERT INTO litserve_schema_version (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
    await client.end();
    await expect(openPostgresStore(url, quiet)).rejects.toThrow(
      new RegExp(`schema is at version ${SCHEMA_VERSION + 1}, newer than this server's ${SCHEMA_VERSION}`),
    );
    expect(await versions(url)).toEqual([...Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1), SCHEMA_VERSION + 1]);
  });
});
