/**
 * The platform store and its file contents directory parted: the store's file removed and a new store made beside
 * the old directory (the refusal now says the store was made at this start and to restore its file), a new, empty
 * --blob-dir given to a store that holds files (taken over in silence before: every file then answered 404), and a
 * damaged record of the directory's owner (its NULs and broken UTF-8 had been written to the terminal, and an empty
 * one named store "" as another store).
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OWNER_FILE, claimBlobDirectory } from '../../src/platform/blob-owner.js';
import { TOKENS, bearer, createProject, multipart, perTestScratch, startServer, type TestServer } from '../platform/helpers.js';

const { scratch, serve, stop } = perTestScratch();

async function serveWithAFile(dataDir: string, blobDir: string): Promise<TestServer> {
  const server = await serve({ dataDir, blobDir });
  await createProject(server.app, 'org', 'proj');
  const body = await multipart('kept.txt', 'kept content', 'text/plain');
  const stored = await server.app.inject({ method: 'PUT', url: '/v1/files/org/proj/kept', headers: { ...bearer(TOKENS.alice), ...body.headers }, payload: body.payload });
  expect(stored.statusCode).toBe(201);
  return server;
}

describe('the store and its file contents directory parted', () => {
  it("a store made anew beside its old directory (its file removed) is refused, saying to restore the store's file", async () => {
    const dataDir = await scratch('parted-data-');
    const blobDir = await scratch('parted-blobs-');
    await stop(await serveWithAFile(dataDir, blobDir));
    await rm(path.join(dataDir, 'platform', 'store', 'data.mdb'));
    await expect(startServer({ dataDir, blobDir })).rejects.toThrow(
      /^--blob-dir \(BLOB_DIR\) .* holds the file contents of another platform store .* This server's store was made at this start \(there was none\): if its file \(data\.mdb\) was removed or lost, restore it from a backup instead of starting anew\.$/,
    );
  });

  it('a new, empty --blob-dir given to a store holding files is taken with a warning that says where the contents are not', async () => {
    const dataDir = await scratch('moved-data-');
    await stop(await serveWithAFile(dataDir, await scratch('first-blobs-')));
    const warnings: string[] = [];
    const emptyDir = path.join(await scratch('typo-'), 'blobs');
    await serve({ dataDir, blobDir: emptyDir, logger: { info: () => {}, warn: (message) => void warnings.push(message), error: () => {} } });
    expect(warnings.filter((warning) => warning.startsWith(`${emptyDir} held no file contents and is now this store's file contents directory, while the store holds files`))).toHaveLength(1);
  });

  it('a damaged owner record is said to be damaged, without its bytes, and how to go on', async () => {
    for (const damage of ['', '\u0000\u0000', Buffer.from([0xff, 0xfe, 0x00, 0x41])]) {
      const dir = await scratch('damaged-owner-');
      await writeFile(path.join(dir, OWNER_FILE), damage);
      const refusal = await claimBlobDirectory(dir, 'store-a', '--blob-dir', false).then(() => null, (error: Error) => error.message);
      expect(refusal).toBe(
        `${path.join(dir, OWNER_FILE)} is damaged: it holds no store id. If ${dir} is this server's file contents directory, remove ${path.join(dir, OWNER_FILE)} and start again: the directory is then adopted, its contents kept.`,
      );
    }
  });
});
