/**
 * Ranges, pages and counts of the platform store, on the backend the test project runs (LMDB in the default
 * project, PostgreSQL in the `postgresql` one): keys under a prefix and no other, whatever their elements
 * sort next to; a page is the slice of the whole range; a write's own changes count before it commits.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openLmdbStore } from '../../../src/platform/store/lmdb.js';
import { openPostgresStore } from '../../../src/platform/store/postgres.js';
import type { Store, StoreKey } from '../../../src/platform/store/store.js';
import { schemaUrl } from '../../postgres/cluster.js';
import { testPostgresUrl } from '../../postgres/project.js';

const quiet = { info: () => undefined, warn: () => undefined };

let store: Store;
let cleanup: () => Promise<void>;

beforeEach(async (context) => {
  const cluster = testPostgresUrl();
  if (cluster !== undefined) {
    store = await openPostgresStore(await schemaUrl(cluster, `range-${context.task.id}-${Date.now()}`), quiet);
    cleanup = () => store.close();
  } else {
    const dir = await mkdtemp(path.join(tmpdir(), 'store-range-'));
    store = openLmdbStore(dir);
    cleanup = async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    };
  }
});
afterEach(() => cleanup());

// Neighbours of ['p', 'a'] in every direction the bounds could get wrong: prefixes of the element, extensions of it
// (through the smallest character text holds), longer and shorter tuples, numbers after it.
// A one-element key is a plain string (LMDB gives those back as strings).
const KEYS: StoreKey[] = [
  'p',
  ['p', 'a'],
  ['p', 'a', 1],
  ['p', 'a', 2],
  ['p', 'a', 10],
  ['p', 'a', 'x'],
  ['p', 'a', 'x', 'y'],
  ['p', 'a\u0001'],
  ['p', 'a\u0001', 'x'],
  ['p', 'a b'],
  ['p', 'ab'],
  ['p', 'b'],
  ['p ', 'a'],
  ['p\u0001', 'a'],
  ['pa', 'a'],
  ['o', 'z'],
  'q',
];

async function putAll(keys: StoreKey[]): Promise<void> {
  await store.write(async () => {
    for (const key of keys) await store.table('heads').put(key, JSON.stringify(key));
  });
}

const keysOf = (entries: { key: StoreKey }[]) => entries.map(({ key }) => key);

describe('ranges under a prefix', () => {
  test('hold exactly the keys starting with the prefix, in key order', async () => {
    await putAll([...KEYS].reverse());
    const heads = store.table<string>('heads');
    expect(keysOf(await heads.range(['p', 'a']))).toEqual([['p', 'a'], ['p', 'a', 1], ['p', 'a', 2], ['p', 'a', 10], ['p', 'a', 'x'], ['p', 'a', 'x', 'y']]);
    expect(keysOf(await heads.range(['p', 'a', 'x']))).toEqual([['p', 'a', 'x'], ['p', 'a', 'x', 'y']]);
    expect(keysOf(await heads.range(['p']))).toEqual(KEYS.slice(0, 12));
    expect(keysOf(await heads.range(['p\u0001']))).toEqual([['p\u0001', 'a']]);
    expect(keysOf(await heads.range(['pa']))).toEqual([['pa', 'a']]);
    expect(await heads.range(['p', 'c'])).toEqual([]);
    expect(keysOf(await heads.range())).toHaveLength(KEYS.length);
    expect((await heads.range(['p', 'a\u0001'])).map(({ value }) => value)).toEqual([JSON.stringify(['p', 'a\u0001']), JSON.stringify(['p', 'a\u0001', 'x'])]);
  });

  test('count what they hold, and a page is the slice of the whole range', async () => {
    await putAll(KEYS);
    const heads = store.table<string>('heads');
    for (const prefix of [['p'], ['p', 'a'], ['p', 'a\u0001'], ['p', 'c'], ['q'], undefined]) {
      const all = keysOf(await heads.range(prefix));
      expect(await heads.count(prefix)).toBe(all.length);
      for (const [offset, limit] of [[0, 1], [0, 100], [2, 3], [5, 0], [11, 5], [50, 5]] as const) {
        expect(keysOf(await heads.range(prefix, { offset, limit }))).toEqual(all.slice(offset, offset + limit));
      }
    }
  });

  test("inside a write, pages and counts include the write's own puts and leave out its removals", async () => {
    await putAll([['p', 'b'], ['p', 'd'], ['p', 'f']]);
    const heads = store.table<string>('heads');
    await store.write(async () => {
      await heads.put(['p', 'a'], 'new');
      await heads.put(['p', 'e'], 'new');
      await heads.remove(['p', 'd']);
      await heads.put(['q', 'a'], 'elsewhere');
      expect(await heads.count(['p'])).toBe(4);
      expect(keysOf(await heads.range(['p'], { offset: 1, limit: 2 }))).toEqual([['p', 'b'], ['p', 'e']]);
    });
    expect(keysOf(await heads.range(['p']))).toEqual([['p', 'a'], ['p', 'b'], ['p', 'e'], ['p', 'f']]);
  });
});
