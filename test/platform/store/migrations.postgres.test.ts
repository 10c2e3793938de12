/** The PostgreSQL schema is created and versioned at start; a database a newer server migrated is refused, unchanged. */
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { MIGRATION_LOCK_KEY_SQL, SCHEMA_VERSION } from '../../../src/platform/store/migrations.js';
import { OPERATOR } from '../../../src/platform/identities.js';
import { RevisionStore } from '../../../src/platform/revisions.js';
import { storeIdOf } from '../../../src/platform/store-id.js';
import { openPostgresStore } from '../../../src/platform/store/postgres.js';
import { keysUnder } from '../../../src/platform/store/postgres-table.js';
import { schemaUrl } from '../../postgres/cluster.js';
import { testPostgresUrl } from '../../postgres/project.js';

const quiet = { info: () => undefined, warn: () => undefined };
/** What a test going back to an earlier version drops, as that version did not have them: the table migration 7 added, */
const TABLES_OF_VERSION_7 = 'litserve_store_id';
/** the tables migrations 6 and later added (back to version 5), */
const TABLES_OF_VERSION_6 = `litserve_archive_holds, litserve_archive_totals, ${TABLES_OF_VERSION_7}`;
/** The tables migrations 5 and later added: what a test rolling a database back to version 4 or earlier drops. */
const TABLES_OF_VERSION_5 = `litserve_org_revisions, litserve_project_revisions, ${TABLES_OF_VERSION_6}`;

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
      // Back to what a server of schema version 1 left: no payloads table (nor later ones), a record in another one.
      await client.query(`DROP TABLE litserve_payloads, litserve_listings, ${TABLES_OF_VERSION_5}`);
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

  test("a database at version 2 gets the listings table filled from the heads at start, and lists them", async () => {
    const url = await schemaUrl(testPostgresUrl()!, `from-2-${Date.now()}`);
    const store = await openPostgresStore(url, quiet);
    const revisions = await RevisionStore.open(store, Date.now);
    for (const id of ['r2', 'r1', 'f1', 'r3']) {
      await revisions.create('lab/p', `http://x/${id}`, id.startsWith('f') ? 'file' : 'resource', { source: { n: id } }, OPERATOR);
    }
    await revisions.deprecate('lab/p', 'http://x/r1', 'resource', 1, OPERATOR);
    await revisions.create('lab/q', 'http://x/r9', 'resource', { source: {} }, OPERATOR);
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Back to what a server of schema version 2 left: the heads, no listings table.
      await client.query(`DROP TABLE litserve_listings, ${TABLES_OF_VERSION_5}`);
      await client.query('DELETE FROM litserve_schema_version WHERE version > 2');
      const reopened = await openPostgresStore(url, quiet);
      try {
        const listings = reopened.table<number>('listings');
        expect(await listings.range()).toEqual([
          { key: ['lab/p', 'file', 'http://x/f1'], value: 1 },
          { key: ['lab/p', 'resource', 'http://x/r1'], value: 2 },
          { key: ['lab/p', 'resource', 'http://x/r2'], value: 1 },
          { key: ['lab/p', 'resource', 'http://x/r3'], value: 1 },
          { key: ['lab/q', 'resource', 'http://x/r9'], value: 1 },
        ]);
        const listed = await (await RevisionStore.open(reopened, Date.now)).list('lab/p', 'resource', 1, 5);
        expect(listed.total).toBe(3);
        expect(listed.states.map((state) => [state.id, state.rev])).toEqual([['http://x/r2', 1], ['http://x/r3', 1]]);
      } finally {
        await reopened.close();
      }
    } finally {
      await client.end();
    }
  });

  test('a database at version 3 gets its payload texts unescaped at start, read back as written', async () => {
    const url = await schemaUrl(testPostgresUrl()!, `from-3-${Date.now()}`);
    const source = { '@type': 'Dataset', quote: 'say "hi"\\ \u00e9 \ud83d\ude00', nested: { list: [1, 2.5, null] } };
    const store = await openPostgresStore(url, quiet);
    await (await RevisionStore.open(store, Date.now)).create('lab/p', 'http://x/r', 'resource', { source }, OPERATOR);
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const stored = async () => (await client.query<{ value: string }>('SELECT value FROM litserve_payloads')).rows.map((row) => row.value);
      expect(await stored()).toEqual([JSON.stringify(source)]);
      // Back to what a server of schema version 3 left: the payload text as a JSON string of itself.
      await client.query('UPDATE litserve_payloads SET value = $1', [JSON.stringify(JSON.stringify(source))]);
      await client.query(`DROP TABLE ${TABLES_OF_VERSION_5}`);
      await client.query('DELETE FROM litserve_schema_version WHERE version > 3');
      const reopened = await openPostgresStore(url, quiet);
      try {
        expect(await stored()).toEqual([JSON.stringify(source)]);
        expect((await (await RevisionStore.open(reopened, Date.now)).fetch('lab/p', 'http://x/r', {})).source).toEqual(source);
      } finally {
        await reopened.close();
      }
    } finally {
      await client.end();
    }
  });

  test('a database at version 4 gets the tables of past organization and project revisions at start, its heads kept', async () => {
    const url = await schemaUrl(testPostgresUrl()!, `from-4-${Date.now()}`);
    await (await openPostgresStore(url, quiet)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`DROP TABLE ${TABLES_OF_VERSION_5}`);
      await client.query('DELETE FROM litserve_schema_version WHERE version > 4');
      await client.query(`INSERT INTO litserve_orgs (key, key_json, value) VALUES ('{lab}', '"lab"', '{"label":"lab","rev":3}')`);
      const store = await openPostgresStore(url, quiet);
      try {
        expect(await store.table('orgs').get('lab')).toEqual({ label: 'lab', rev: 3 });
        await store.write(() => store.table('org-revisions').put(['lab', 3], { label: 'lab', rev: 3 }));
        expect(await store.table('org-revisions').range(['lab'])).toEqual([{ key: ['lab', 3], value: { label: 'lab', rev: 3 } }]);
        expect(await store.table('project-revisions').count()).toBe(0);
      } finally {
        await store.close();
      }
      expect(await versions(url)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      await client.end();
    }
  });

  test('a database at version 5 gets the tables of the archive quota ledger at start', async () => {
    const url = await schemaUrl(testPostgresUrl()!, `from-5-${Date.now()}`);
    await (await openPostgresStore(url, quiet)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`DROP TABLE ${TABLES_OF_VERSION_6}`);
      await client.query('DELETE FROM litserve_schema_version WHERE version > 5');
      const store = await openPostgresStore(url, quiet);
      try {
        await store.write(() => store.table('archive-totals').put('stored-bytes', 12));
        expect(await store.table('archive-totals').get('stored-bytes')).toBe(12);
        expect(await store.table('archive-holds').count()).toBe(0);
      } finally {
        await store.close();
      }
      expect(await versions(url)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      await client.end();
    }
  });

  test("a database at version 6 gets the store's identity table at start, and the id made there stays", async () => {
    const url = await schemaUrl(testPostgresUrl()!, `from-6-${Date.now()}`);
    await (await openPostgresStore(url, quiet)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`DROP TABLE ${TABLES_OF_VERSION_7}`);
      await client.query('DELETE FROM litserve_schema_version WHERE version > 6');
      const first = await openPostgresStore(url, quiet);
      let id: string;
      try {
        ({ id } = await storeIdOf(first));
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
      } finally {
        await first.close();
      }
      const again = await openPostgresStore(url, quiet);
      try {
        expect((await storeIdOf(again)).id).toBe(id);
      } finally {
        await again.close();
      }
      expect(await versions(url)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      await client.end();
    }
  });

  test("a range reads through the primary key's index, never a scan of the whole table", async () => {
    const client = new pg.Client({ connectionString: testPostgresUrl()! });
    await client.connect();
    try {
      await client.query('CREATE TEMPORARY TABLE keyed (key text[] COLLATE "C" PRIMARY KEY, value text)');
      // With sequential scans priced out (the table is empty), the plan shows whether the index bounds the scan.
      await client.query('SET enable_seqscan = off');
      const plan = async (where: string, params: unknown[]) =>
        (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT value FROM keyed${where} ORDER BY key`, params)).rows.map((row) => row['QUERY PLAN']).join('\n');
      for (const prefix of [['lab/p'], ['lab/p', 'resource'], ['lab/p', 'http://x/r1']]) {
        const { where, params } = keysUnder(prefix);
        expect(await plan(where, params)).toMatch(/Index Cond: \(\(key >= .*\) AND \(key < .*\)\)/);
      }
      // What the store ran before: a condition on a slice of the key, which bounds no index scan (every key is read).
      expect(await plan(' WHERE key[1:1] = $1', [['lab/p']])).not.toMatch(/Index Cond/);
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

  test("servers starting on one schema migrate one at a time; one on another schema does not wait for them", async () => {
    const held = await schemaUrl(testPostgresUrl()!, `held-${Date.now()}`);
    const other = await schemaUrl(testPostgresUrl()!, `other-${Date.now()}`);
    // A server migrating the first schema, as seen from the others: the lock held in an open transaction.
    const migrating = new pg.Client({ connectionString: held });
    await migrating.connect();
    await migrating.query('BEGIN');
    await migrating.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY_SQL})`);
    const order: string[] = [];
    const sameSchema = openPostgresStore(held, quiet).then((store) => (order.push('same schema opened'), store.close()));
    const otherSchema = openPostgresStore(other, quiet).then((store) => (order.push('other schema opened'), store.close()));
    // Given back once the other schema's server has started, or after 5 s if it waits for the lock too.
    await Promise.race([otherSchema, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await migrating.query('COMMIT');
    order.push('lock given back');
    await migrating.end();
    await Promise.all([sameSchema, otherSchema]);
    expect(order).toEqual(['other schema opened', 'lock given back', 'same schema opened']);
  });
});
