/**
 * One file contents directory per platform store (blob-owner.ts). Servers with their own `--data` given one
 * `--blob-dir` had collected each other's contents at start as unreferenced: a file acknowledged by one
 * became 404 FileContentNotFound once the other started. The directory now names its store, and a server of
 * another store is refused before it touches anything there.
 */
import { mkdir, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { OWNER_FILE, claimBlobDirectory } from '../../src/platform/blob-owner.js';
import { COLLECTION_GRACE_MS } from '../../src/platform/blobs.js';
import { TOKENS, bearer, createProject, multipart, perTestScratch, startServer, type TestServer } from './helpers.js';

const alice = bearer(TOKENS.alice);
const { scratch, serve, stop } = perTestScratch();

async function upload(server: TestServer, id: string, content: string) {
  const body = await multipart(`${id}.txt`, content, 'text/plain');
  return server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...alice, ...body.headers }, payload: body.payload });
}

const read = (server: TestServer, id: string) => server.app.inject({ method: 'GET', url: `/v1/files/org/proj/${id}`, headers: { ...alice, accept: '*/*' } });

/** The content files under `blobDir`, made older than the collector's grace, as contents of a server that ran for a while. */
async function contentsAgedPastGrace(blobDir: string): Promise<string[]> {
  const root = path.join(blobDir, 'sha256');
  const contents = (await readdir(root, { recursive: true })).filter((entry) => /^[0-9a-f]{64}$/.test(path.basename(entry)));
  const longAgo = new Date(Date.now() - 2 * COLLECTION_GRACE_MS);
  for (const entry of contents) await utimes(path.join(root, entry), longAgo, longAgo);
  return contents.map((entry) => path.basename(entry));
}

describe('one --blob-dir given to servers of two stores', () => {
  test("the second store's server is refused, and the first still serves the upload it acknowledged", async () => {
    const blobDir = await scratch('shared-blobs-');
    const first = await serve({ dataDir: await scratch('first-'), blobDir });
    await createProject(first.app, 'org', 'proj');
    expect((await upload(first, 'kept', 'acknowledged content')).statusCode).toBe(201);
    expect(await contentsAgedPastGrace(blobDir)).toHaveLength(1);

    const second = startServer({ dataDir: await scratch('second-'), blobDir });
    await expect(second).rejects.toThrow(
      new RegExp(`^--blob-dir \\(BLOB_DIR\\) ${blobDir} holds the file contents of another platform store \\(${path.join(blobDir, OWNER_FILE)} names store [0-9a-f-]{36}; this server's store is [0-9a-f-]{36}\\)`),
    );
    // What to do is the setting; removing the record is for a store gone for good (a move from LMDB had been told to remove it).
    await expect(second).rejects.toThrow('each store needs a directory of its own (give this one --blob-dir / BLOB_DIR)');
    await expect(second).rejects.toThrow('Only if that other store and its files are gone for good, remove');
    const served = await read(first, 'kept');
    expect(served.statusCode).toBe(200);
    expect(served.body).toBe('acknowledged content');

    // The store's own servers keep the directory: a restart on the same data is no other store.
    await stop(first);
    const again = await serve({ dataDir: first.dataDir, blobDir });
    expect((await read(again, 'kept')).body).toBe('acknowledged content');
  });

  test('a directory that names no store but holds contents (an older version) is taken, and its unreferenced contents are collected only from the next start', async () => {
    const blobDir = await scratch('unnamed-blobs-');
    const dataDir = await scratch('owner-');
    const before = await serve({ dataDir, blobDir });
    await createProject(before.app, 'org', 'proj');
    expect((await upload(before, 'kept', 'referenced content')).statusCode).toBe(201);
    await stop(before);
    await rm(path.join(blobDir, OWNER_FILE));
    const orphan = 'ab'.repeat(32);
    await mkdir(path.join(blobDir, 'sha256', 'ab', 'ab'), { recursive: true });
    await writeFile(path.join(blobDir, 'sha256', 'ab', 'ab', orphan), 'nobody references this');
    expect((await contentsAgedPastGrace(blobDir)).sort()).toContain(orphan);

    const warnings: string[] = [];
    const logger = { info() {}, warn: (line: string) => void warnings.push(line), error() {} };
    const adopting = await serve({ dataDir, blobDir, logger });
    expect(warnings.join('\n')).toContain(`${blobDir} held file contents and named no store: it is now this store's (${OWNER_FILE})`);
    expect(await contentsAgedPastGrace(blobDir)).toContain(orphan);
    await stop(adopting);

    const next = await serve({ dataDir, blobDir });
    expect(await contentsAgedPastGrace(blobDir)).not.toContain(orphan);
    expect((await read(next, 'kept')).body).toBe('referenced content');
  });
});

describe('recording the owner', () => {
  test('claims made at once: every claim of one store succeeds, of two stores only one store\'s', async () => {
    const shared = await scratch('claims-');
    const sameStore = await Promise.allSettled(Array.from({ length: 8 }, () => claimBlobDirectory(shared, 'store-a', '--blob-dir', false)));
    expect(sameStore.map((claim) => claim.status)).toEqual(Array(8).fill('fulfilled'));

    const contested = await scratch('contested-');
    const claims = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => claimBlobDirectory(contested, i % 2 === 0 ? 'store-a' : 'store-b', '--blob-dir', false)));
    const won = claims.map((claim, i) => (claim.status === 'fulfilled' ? (i % 2 === 0 ? 'store-a' : 'store-b') : null)).filter((store) => store !== null);
    expect(won.length).toBeGreaterThan(0);
    expect(new Set(won).size).toBe(1);
    expect(claims.filter((claim) => claim.status === 'rejected')).toHaveLength(8 - won.length);
    expect((await readdir(contested)).sort()).toEqual([OWNER_FILE]);
  });
});
