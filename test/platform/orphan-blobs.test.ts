/**
 * Uploads never leave contents that no file references: concurrent creations
 * of one id are refused before their bytes are stored, and unreferenced
 * contents are collected at start, never one a write is about to reference;
 * nor do uploads a killed server left half-written stay in tmp/.
 */
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BlobStore, COLLECTION_GRACE_MS } from '../../src/platform/blobs.js';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

async function storedContents(dataDir: string): Promise<string[]> {
  const root = path.join(dataDir, 'platform', 'files', 'sha256');
  const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  return entries.map((entry) => path.basename(entry)).filter((name) => /^[0-9a-f]{64}$/.test(name)).sort();
}

async function put(url: string, content: string) {
  const body = await multipart('data.txt', content, 'text/plain');
  return server.app.inject({ method: 'PUT', url, headers: { ...alice, ...body.headers }, payload: body.payload });
}

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

describe('concurrent writes of one file id', () => {
  test('20 concurrent creations: one 201, nineteen 409, and only the winner’s content is stored', async () => {
    const before = await storedContents(server.dataDir);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => put('/v1/files/org/proj/raced', `content number ${i}`)));
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    const winner = responses.find((r) => r.statusCode === 201)!.json()._digest._value;
    expect(await storedContents(server.dataDir)).toEqual([...before, winner].sort());
  });

  test('20 concurrent updates from one revision: one 200, nineteen 409, one new content', async () => {
    const before = await storedContents(server.dataDir);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => put('/v1/files/org/proj/raced?rev=1', `update number ${i}`)));
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, ...Array(19).fill(409)]);
    const winner = responses.find((r) => r.statusCode === 200)!.json()._digest._value;
    expect(await storedContents(server.dataDir)).toEqual([...before, winner].sort());
  });
});

describe('collecting unreferenced contents', () => {
  test('a content no file references is removed at start; referenced ones stay', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'orphans-'));
    const first = await startServer({ dataDir });
    await createProject(first.app, 'org', 'proj');
    const body = await multipart('kept.txt', 'kept content', 'text/plain');
    const kept = await first.app.inject({ method: 'PUT', url: '/v1/files/org/proj/kept', headers: { ...alice, ...body.headers }, payload: body.payload });
    await first.stop();
    // A content left behind by a write that never committed (a crash between storing and committing).
    const orphan = 'ab'.repeat(32);
    const orphanDir = path.join(dataDir, 'platform', 'files', 'sha256', 'ab', 'ab');
    await mkdir(orphanDir, { recursive: true });
    await writeFile(path.join(orphanDir, orphan), 'nobody references this');
    const longAgo = new Date(Date.now() - 2 * COLLECTION_GRACE_MS);
    await utimes(path.join(orphanDir, orphan), longAgo, longAgo);
    const second = await startServer({ dataDir });
    try {
      expect(await storedContents(dataDir)).toEqual([kept.json()._digest._value]);
      expect((await second.app.inject({ method: 'GET', url: '/v1/files/org/proj/kept', headers: alice })).body).toBe('kept content');
    } finally {
      await second.close();
    }
  });

  test('an unreferenced content younger than the grace period is kept (another server may be about to reference it)', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'blobs-'));
    try {
      const blobs = new BlobStore(root);
      await blobs.init();
      const stored = await blobs.write(Readable.from([Buffer.from('young')]), () => false, () => new Error('too large'));
      stored.release();
      expect(await blobs.collectGarbage(async () => new Set())).toBe(0);
      expect(await blobs.collectGarbage(async () => new Set(), Date.now() + 2 * COLLECTION_GRACE_MS)).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  test('the periodic collection removes uploads abandoned in tmp/ an hour ago, never a recent one', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'blobs-'));
    try {
      const blobs = new BlobStore(root);
      // Shared, as a --blob-dir: at start only abandoned uploads go, and a replica killed later leaves more.
      await blobs.init(true);
      const tmp = path.join(root, 'tmp');
      await writeFile(path.join(tmp, 'killed-mid-upload'), 'half of an upload');
      const longAgo = new Date(Date.now() - 2 * COLLECTION_GRACE_MS);
      await utimes(path.join(tmp, 'killed-mid-upload'), longAgo, longAgo);
      // Another server's upload in progress: written to moments ago.
      await writeFile(path.join(tmp, 'in-progress'), 'the start of an upload');
      expect(await blobs.collectGarbage(async () => new Set())).toBe(0);
      expect(await readdir(tmp)).toEqual(['in-progress']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  test('a content just stored is not collected until its writer releases it', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'blobs-'));
    try {
      const blobs = new BlobStore(root);
      await blobs.init();
      const stored = await blobs.write(Readable.from([Buffer.from('in flight')]), () => false, () => new Error('too large'));
      const later = Date.now() + 2 * COLLECTION_GRACE_MS;
      expect(await blobs.collectGarbage(async () => new Set(), later)).toBe(0);
      expect(blobs.has(stored.digest)).toBe(true);
      stored.release();
      expect(await blobs.collectGarbage(async () => new Set(), later)).toBe(1);
      expect(blobs.has(stored.digest)).toBe(false);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
