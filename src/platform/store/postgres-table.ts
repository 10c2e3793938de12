/**
 * A store table on PostgreSQL: one SQL table keyed by the key tuple as text[], its JSON form beside it
 * (which elements are numbers) and the value as text (migrations.ts).
 */
import type pg from 'pg';
import { sqlTable } from './migrations.js';
import { type Entry, type StoreKey, type Table, type TableName, TEXT_TABLES } from './store.js';

/** A statement, inside the current write's transaction when there is one. */
export type Query = <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<pg.QueryResult<R>>;

/** Key tuples as text[]: integers zero-padded, so they sort as numbers. */
function keyArray(key: StoreKey): string[] {
  return (typeof key === 'string' ? [key] : key).map((element) => (typeof element === 'number' ? String(element).padStart(16, '0') : element));
}

/**
 * The condition selecting the keys under `prefix`, as bounds the primary key's index serves:
 * the prefix itself up to, not including, the prefix with a \u0001 after its last element (text
 * cannot hold \u0000, so no element sorts between the two but those extending the last one).
 */
export function keysUnder(prefix: readonly string[] | undefined): { where: string; params: string[][] } {
  if (prefix === undefined || prefix.length === 0) return { where: '', params: [] };
  const after = [...prefix.slice(0, -1), `${prefix.at(-1)!}\u0001`];
  return { where: ' WHERE key >= $1 AND key < $2', params: [keyArray(prefix), keyArray(after)] };
}

/** The table `name` read and written through `query`; `inWrite` throws for a change outside a write. */
export function postgresTable<V>(name: TableName, query: Query, inWrite: (operation: string) => void): Table<V> {
  const sql = sqlTable(name);
  const text = TEXT_TABLES.has(name);
  const encode = (value: V): string => (text ? (value as string) : JSON.stringify(value));
  const decode = (value: string): V => (text ? value : JSON.parse(value)) as V;
  return {
    get: async (key) => {
      const { rows } = await query<{ value: string }>(`SELECT value FROM ${sql} WHERE key = $1`, [keyArray(key)]);
      return rows[0] === undefined ? undefined : decode(rows[0].value);
    },
    getMany: async (keys) => {
      if (keys.length === 0) return [];
      // The keys travel as one JSON array of text arrays, matched through the primary key's index.
      const { rows } = await query<{ key_json: string; value: string }>(
        `SELECT key_json, value FROM ${sql} WHERE key IN (SELECT ARRAY(SELECT json_array_elements_text(wanted)) COLLATE "C" FROM json_array_elements($1::json) AS wanted)`,
        [JSON.stringify(keys.map(keyArray))],
      );
      const found = new Map(rows.map((row) => [row.key_json, decode(row.value)]));
      return keys.map((key) => found.get(JSON.stringify(key)));
    },
    put: async (key, value) => {
      inWrite('put');
      await query(
        `INSERT INTO ${sql} (key, key_json, value) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET key_json = excluded.key_json, value = excluded.value`,
        [keyArray(key), JSON.stringify(key), encode(value)],
      );
    },
    remove: async (key) => {
      inWrite('remove');
      await query(`DELETE FROM ${sql} WHERE key = $1`, [keyArray(key)]);
    },
    range: async (prefix, page) => {
      const { where, params } = keysUnder(prefix);
      const paged = page === undefined ? '' : ` OFFSET $${params.length + 1} LIMIT $${params.length + 2}`;
      const values = page === undefined ? params : [...params, page.offset, page.limit];
      const { rows } = await query<{ key_json: string; value: string }>(`SELECT key_json, value FROM ${sql}${where} ORDER BY key${paged}`, values);
      return rows.map((row): Entry<V> => ({ key: JSON.parse(row.key_json) as StoreKey, value: decode(row.value) }));
    },
    count: async (prefix) => {
      const { where, params } = keysUnder(prefix);
      const { rows } = await query<{ count: number }>(`SELECT count(*)::integer AS count FROM ${sql}${where}`, params);
      return rows[0]!.count;
    },
  };
}
