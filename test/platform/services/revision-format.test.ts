/**
 * How revisions are stored: the payload as JSON text, parsed only when read
 * (stored-json.ts); revisions stored before, with the payload as an object,
 * read the same. Both stores' tables are reached through the same interface;
 * this runs on LMDB.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { OPERATOR } from '../../../src/platform/identities.js';
import { RevisionStore } from '../../../src/platform/revisions.js';
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
