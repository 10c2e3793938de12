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

test('a payload is stored as JSON text and read back equal, parsed on first read', async () => {
  const revisions = await open();
  const source = { '@type': 'Dataset', name: 'x', values: [1, 2.5, null, { nested: true }] };
  await revisions.create('org/proj', 'r1', 'resource', { source }, OPERATOR);
  const stored = (await store.table<Record<string, unknown>>('revisions').get(['org/proj', 'r1', 1]))!;
  expect(stored.sourceJson).toBe(JSON.stringify(source));
  expect(stored).not.toHaveProperty('source');

  const state = await revisions.fetch('org/proj', 'r1', {});
  expect(storedJsonOf(state)).toBe(JSON.stringify(source));
  expect(state.source).toEqual(source);
  const updated = await revisions.update('org/proj', 'r1', 'resource', 1, OPERATOR, () => ({ deprecated: true }));
  expect((await revisions.fetch('org/proj', 'r1', { rev: 2 })).source).toEqual(source);
  expect(updated.rev).toBe(2);
});

test('a revision stored with its payload as an object (before) reads the same', async () => {
  const revisions = await open();
  const source = { '@type': 'Dataset', name: 'old' };
  await revisions.create('org/proj', 'r1', 'resource', { source }, OPERATOR);
  const table = store.table<Record<string, unknown>>('revisions');
  const { sourceJson: _text, ...record } = (await table.get(['org/proj', 'r1', 1]))!;
  await store.write(() => table.put(['org/proj', 'r1', 1], { ...record, source }));

  const state = await revisions.fetch('org/proj', 'r1', {});
  expect(storedJsonOf(state)).toBeUndefined();
  expect(state.source).toEqual(source);
  expect((await revisions.list('org/proj', 'resource', 0, 10)).states[0]!.source).toEqual(source);
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
  expect(stored).toMatchObject({ sourceJson: text, sourceType: { '@type': ['Dataset', 'schema:Thing'] }, deprecated: true, tags: { v1: 1 } });
  expect((await revisions.fetch('org/proj', 'typed', { rev: 3 })).source).toEqual(source);
  // A new payload records its own type.
  const updated = await revisions.update('org/proj', 'untyped', 'resource', 1, OPERATOR, () => ({ source: { '@type': 'Person' } }));
  expect(sourceTypeOf(await revisions.fetch('org/proj', 'untyped', { rev: updated.rev }))).toBe('Person');
});

test('a revision stored before types were recorded apart gives its type from its payload', async () => {
  const revisions = await open();
  await revisions.create('org/proj', 'r1', 'resource', { source: { '@type': 'Dataset' } }, OPERATOR);
  const table = store.table<Record<string, unknown>>('revisions');
  const { sourceType: _type, ...record } = (await table.get(['org/proj', 'r1', 1]))!;
  await store.write(() => table.put(['org/proj', 'r1', 1], record));
  const state = await revisions.fetch('org/proj', 'r1', {});
  expect(state.sourceType).toBeUndefined();
  expect(sourceTypeOf(state)).toBe('Dataset');
});
