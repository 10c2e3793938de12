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
import type { Store } from '../../../src/platform/store/store.js';
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
  return new RevisionStore(store, () => 1_700_000_000_000);
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
