/**
 * How revisions are stored: the payload as JSON text, parsed only when read
 * (stored-json.ts), its `@type` recorded apart so listings, tags and
 * deprecations never parse it; revisions stored before, with the payload as
 * an object or without the type apart, read the same. Both stores' tables are reached through the same interface;
 * this runs on LMDB.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { OPERATOR } from '../../../src/platform/identities.js';
import { RevisionStore, sourceTypeOf } from '../../../src/platform/revisions.js';
import { openLmdbStore } from '../../../src/platform/store/lmdb.js';
import type { Store, Table, TableName } from '../../../src/platform/store/store.js';
import { storedJsonOf } from '../../../src/platform/stored-json.js';

let store: Store;
let dir: string;
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(): Promise<RevisionStore> {
  dir = await mkdtemp(path.join(tmpdir(), 'revision-format-'));
  store = openLmdbStore(dir);
  return RevisionStore.open(store, () => 1_700_000_000_000);
}

test('a payload is stored as JSON text apart from the revision, read back equal, parsed on first read', async () => {
  const revisions = await open();
  const source = { '@type': 'Dataset', name: 'x', values: [1, 2.5, null, { nested: true }] };
  await revisions.create('org/proj', 'r1', 'resource', { source }, OPERATOR);
  const stored = (await store.table<Record<string, unknown>>('revisions').get(['org/proj', 'r1', 1]))!;
  expect(stored).toMatchObject({ payloadRev: 1, sourceType: { '@type': 'Dataset' } });
  expect(stored).not.toHaveProperty('source');
  expect(stored).not.toHaveProperty('sourceJson');
  const payloads = store.table<string>('payloads');
  expect(await payloads.get(['org/proj', 'r1', 1])).toBe(JSON.stringify(source));

  const state = await revisions.fetch('org/proj', 'r1', {});
  expect(storedJsonOf(state)).toBe(JSON.stringify(source));
  expect(state.source).toEqual(source);
  // A revision that keeps the payload points at the earlier row instead of copying it; a new payload gets its own.
  const deprecated = await revisions.update('org/proj', 'r1', 'resource', 1, OPERATOR, () => ({ deprecated: true }));
  expect(deprecated.rev).toBe(2);
  expect(await store.table<Record<string, unknown>>('revisions').get(['org/proj', 'r1', 2])).toMatchObject({ payloadRev: 1, deprecated: true });
  expect(await payloads.get(['org/proj', 'r1', 2])).toBeUndefined();
  expect((await revisions.fetch('org/proj', 'r1', { rev: 2 })).source).toEqual(source);
  await revisions.create('org/proj', 'r2', 'resource', { source }, OPERATOR);
  await revisions.update('org/proj', 'r2', 'resource', 1, OPERATOR, () => ({ source: { name: 'new' } }));
  expect(await store.table<Record<string, unknown>>('revisions').get(['org/proj', 'r2', 2])).toMatchObject({ payloadRev: 2, sourceType: {} });
  expect(await payloads.get(['org/proj', 'r2', 2])).toBe('{"name":"new"}');
  expect((await revisions.fetch('org/proj', 'r2', { rev: 1 })).source).toEqual(source);
  // Listing reads no payload stored apart.
  const listed = (await revisions.list('org/proj', 'resource', 0, 10)).states;
  expect(listed.map((state) => [state.id, state.rev, 'source' in state])).toEqual([['r1', 2, false], ['r2', 2, false]]);
});

test('revisions stored before, with the payload inline as an object or as JSON text, read the same', async () => {
  const revisions = await open();
  const source = { '@type': 'Dataset', name: 'old' };
  await revisions.create('org/proj', 'object', 'resource', { source }, OPERATOR);
  await revisions.create('org/proj', 'text', 'resource', { source }, OPERATOR);
  const table = store.table<Record<string, unknown>>('revisions');
  // As written before: no payload row, no type recorded apart.
  const before = async (id: string) => {
    const { payloadRev: _rev, sourceType: _type, ...record } = (await table.get(['org/proj', id, 1]))!;
    return record;
  };
  const [asObject, asText] = [await before('object'), await before('text')];
  await store.write(async () => {
    await table.put(['org/proj', 'object', 1], { ...asObject, source });
    await table.put(['org/proj', 'text', 1], { ...asText, sourceJson: JSON.stringify(source) });
    await store.table('payloads').remove(['org/proj', 'object', 1]);
    await store.table('payloads').remove(['org/proj', 'text', 1]);
  });

  const object = await revisions.fetch('org/proj', 'object', {});
  expect(storedJsonOf(object)).toBeUndefined();
  expect(object.source).toEqual(source);
  const text = await revisions.fetch('org/proj', 'text', {});
  expect(storedJsonOf(text)).toBe(JSON.stringify(source));
  expect(text.source).toEqual(source);
  for (const state of (await revisions.list('org/proj', 'resource', 0, 10)).states) {
    expect(state.source).toEqual(source);
    expect(sourceTypeOf(state)).toBe('Dataset');
  }
  // Their next revision stores the payload apart.
  await revisions.update('org/proj', 'text', 'resource', 1, OPERATOR, () => ({ deprecated: true }));
  expect(await table.get(['org/proj', 'text', 2])).toMatchObject({ payloadRev: 2, sourceType: { '@type': 'Dataset' } });
  expect(await store.table<string>('payloads').get(['org/proj', 'text', 2])).toBe(JSON.stringify(source));
});

test("a listing, a tag and a deprecation read a payload's type without parsing the payload, and carry its text over", async () => {
  const revisions = await open();
  const source = { '@type': ['Dataset', 'schema:Thing'], text: 'x'.repeat(100_000) };
  const text = JSON.stringify(source);
  await revisions.create('org/proj', 'typed', 'resource', { source }, OPERATOR);
  await revisions.create('org/proj', 'untyped', 'resource', { source: { name: 'no type' } }, OPERATOR);
  await revisions.create('org/proj', 'null-typed', 'resource', { source: { '@type': null } }, OPERATOR);
  const parse = vi.spyOn(JSON, 'parse');
  try {
    const listed = new Map((await revisions.list('org/proj', 'resource', 0, 10)).states.map((state) => [state.id, state]));
    expect(sourceTypeOf(listed.get('typed')!)).toEqual(['Dataset', 'schema:Thing']);
    expect(sourceTypeOf(listed.get('untyped')!)).toBeUndefined();
    expect(sourceTypeOf(listed.get('null-typed')!)).toBeNull();
    const tagged = await revisions.tag('org/proj', 'typed', 'resource', 1, 'v1', 1, OPERATOR);
    const deprecated = await revisions.deprecate('org/proj', 'typed', 'resource', 2, OPERATOR);
    expect(storedJsonOf(tagged)).toBe(text);
    expect(storedJsonOf(deprecated)).toBe(text);
    expect(parse.mock.calls.filter(([json]) => json === text)).toEqual([]);
  } finally {
    parse.mockRestore();
  }
  const stored = (await store.table<Record<string, unknown>>('revisions').get(['org/proj', 'typed', 3]))!;
  expect(stored).toMatchObject({ payloadRev: 1, sourceType: { '@type': ['Dataset', 'schema:Thing'] }, deprecated: true, tags: { v1: 1 } });
  expect(await store.table<string>('payloads').get(['org/proj', 'typed', 1])).toBe(text);
  expect((await revisions.fetch('org/proj', 'typed', { rev: 3 })).source).toEqual(source);
  // A new payload records its own type.
  const updated = await revisions.update('org/proj', 'untyped', 'resource', 1, OPERATOR, () => ({ source: { '@type': 'Person' } }));
  expect(sourceTypeOf(await revisions.fetch('org/proj', 'untyped', { rev: updated.rev }))).toBe('Person');
});

/** The store, with each range's entries counted by table, and the reads (ranges and getMany calls) of each table. */
function countingRanges(inner: Store): { store: Store; read: Map<string, number>; reads: Map<string, number> } {
  const read = new Map<string, number>();
  const reads = new Map<string, number>();
  const count = (name: string) => reads.set(name, (reads.get(name) ?? 0) + 1);
  const table = <V>(name: TableName): Table<V> => {
    const real = inner.table<V>(name);
    return {
      ...real,
      range: async (prefix, page) => {
        count(name);
        const entries = await real.range(prefix, page);
        read.set(name, (read.get(name) ?? 0) + entries.length);
        return entries;
      },
      getMany: (keys) => (count(name), real.getMany(keys)),
    };
  };
  return { store: { ...inner, table }, read, reads };
}

test('a listing pages through the index of its kind: it reads the entries of its page and no other', async () => {
  await open();
  const { store: counted, read } = countingRanges(store);
  const revisions = await RevisionStore.open(counted, () => 1_700_000_000_000);
  const ids = Array.from({ length: 40 }, (_, i) => `http://x/${String(i).padStart(2, '0')}`);
  for (const [i, id] of [...ids].reverse().entries()) await revisions.create('org/proj', id, i % 4 === 0 ? 'file' : 'resource', { source: { i } }, OPERATOR);
  await revisions.create('org/other', 'http://x/00', 'resource', { source: {} }, OPERATOR);
  await revisions.update('org/proj', ids[1]!, 'resource', 1, OPERATOR, () => ({ source: { changed: true } }));
  const resourceIds = ids.filter((_, i) => (ids.length - 1 - i) % 4 !== 0);
  read.clear();

  const page = await revisions.list('org/proj', 'resource', 25, 10);
  expect(page.total).toBe(30);
  expect(page.states.map((state) => state.id)).toEqual(resourceIds.slice(25, 30));
  expect([...read]).toEqual([['listings', 5]]);
  const first = await revisions.list('org/proj', 'resource', 0, 3);
  expect(first.states.map((state) => [state.id, state.rev])).toEqual([[ids[0], 1], [ids[1], 2], [ids[2], 1]]);
  const files = await revisions.list('org/proj', 'file', 0, 100);
  expect(files.total).toBe(10);
  expect(files.states.every((state) => state.kind === 'file')).toBe(true);
  expect((await revisions.list('org/proj', 'resource', 30, 10)).states).toEqual([]);
});

test('an LMDB store written before the listings table gets it filled from the heads when opened', async () => {
  const revisions = await open();
  await revisions.create('org/proj', 'http://x/b', 'resource', { source: {} }, OPERATOR);
  await revisions.create('org/proj', 'http://x/a', 'file', { source: {} }, OPERATOR);
  await revisions.create('org/proj', 'http://x/c', 'resource', { source: {} }, OPERATOR);
  await revisions.tag('org/proj', 'http://x/c', 'resource', 1, 'v1', 1, OPERATOR);
  const listings = store.table<number>('listings');
  const filled = await listings.range();
  // Back to what a server before the listings table left.
  await store.write(async () => {
    for (const { key } of filled) await listings.remove(key);
  });
  expect(await listings.count()).toBe(0);

  const reopened = await RevisionStore.open(store, () => 1_700_000_000_000);
  expect(await listings.range()).toEqual(filled);
  expect(filled.map(({ key, value }) => [...(key as string[]), value])).toEqual([
    ['org/proj', 'file', 'http://x/a', 1],
    ['org/proj', 'resource', 'http://x/b', 1],
    ['org/proj', 'resource', 'http://x/c', 2],
  ]);
  expect((await reopened.list('org/proj', 'resource', 0, 10)).states.map((state) => state.id)).toEqual(['http://x/b', 'http://x/c']);
});

test('the contents files reference are read through each project file listing, never through every entity head', async () => {
  await open();
  const { store: counted, read, reads } = countingRanges(store);
  const revisions = await RevisionStore.open(counted, () => 1_700_000_000_000);
  const digest = (i: number) => i.toString(16).padStart(64, '0');
  const file = (i: number) => ({ digest: digest(i), bytes: 1, filename: 'f.txt', mediaType: 'text/plain' });
  // More files than one page of the listing (1,000), an earlier revision, another project, and resources beside them.
  for (let i = 0; i < 1003; i++) await revisions.create('org/a', `http://x/${i}`, 'file', { source: {}, file: file(i) }, OPERATOR);
  await revisions.update('org/a', 'http://x/0', 'file', 1, OPERATOR, () => ({ file: file(5000) }));
  await revisions.create('org/b', 'http://x/b', 'file', { source: {}, file: file(6000) }, OPERATOR);
  for (let i = 0; i < 50; i++) await revisions.create('org/a', `http://x/r${i}`, 'resource', { source: { i } }, OPERATOR);
  read.clear();
  reads.clear();

  const digests = await revisions.fileDigests(['org/a', 'org/b']);
  expect(digests).toEqual(new Set([...Array.from({ length: 1003 }, (_, i) => digest(i)), digest(5000), digest(6000)]));
  expect(read.get('heads')).toBeUndefined();
  expect(read.get('listings')).toBe(1004);
  // Revisions read by key, at most a thousand to a read, not a read per file: org/a's first page of files
  // has 1,001 revisions (two reads), its second 3 (one), org/b's 1 (one).
  expect(reads.get('revisions')).toBe(4);
});

test('the contents files reference are read up to each head, and not at all when a revision is missing', async () => {
  const revisions = await open();
  const file = (i: number) => ({ digest: i.toString(16).padStart(64, '0'), bytes: 1, filename: 'f.txt', mediaType: 'text/plain' });
  await revisions.create('org/a', 'http://x/f', 'file', { source: {}, file: file(1) }, OPERATOR);
  await revisions.update('org/a', 'http://x/f', 'file', 1, OPERATOR, () => ({ file: file(2) }));
  // The listing's copy of the head's revision behind it, as a version before the listings table leaves it.
  await store.write(() => store.table('listings').put(['org/a', 'file', 'http://x/f'], 1));
  expect(await revisions.fileDigests(['org/a'])).toEqual(new Set([file(1).digest, file(2).digest]));
  // A revision gone: collecting would delete a content still referenced, so nothing is collected.
  await store.write(() => store.table('revisions').remove(['org/a', 'http://x/f', 1]));
  await expect(revisions.fileDigests(['org/a'])).rejects.toThrow('the revisions of a file of org/a are not all stored: no content is collected');
});

test('a revision its head names but the store lacks is said missing, by name, for reads, tag reads, changes and listings', async () => {
  const revisions = await open();
  await revisions.create('org/proj', 'r1', 'resource', { source: { name: 'x' } }, OPERATOR);
  await revisions.update('org/proj', 'r1', 'resource', 1, OPERATOR, () => ({ tags: { v1: 1 } }));
  await store.write(() => store.table('revisions').remove(['org/proj', 'r1', 2]));
  const missing = 'revision 2 of r1 in org/proj is missing from the store';
  await expect(revisions.fetch('org/proj', 'r1', {})).rejects.toThrow(missing);
  await expect(revisions.fetch('org/proj', 'r1', { tag: 'v1' })).rejects.toThrow(missing);
  await expect(revisions.update('org/proj', 'r1', 'resource', 2, OPERATOR, () => ({ deprecated: true }))).rejects.toThrow(missing);
  await expect(revisions.list('org/proj', 'resource', 0, 10)).rejects.toThrow(missing);
  await expect(revisions.list('org/proj', 'resource', 0, 10, () => true)).rejects.toThrow(missing);
  // The revision still stored reads as before.
  expect((await revisions.fetch('org/proj', 'r1', { rev: 1 })).source).toEqual({ name: 'x' });
});
