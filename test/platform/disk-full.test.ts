/**
 * A disk that fills up under an upload: 507 InsufficientStorage (it was a 500), nothing stored, no
 * half-written file left, and uploads that fit are taken again. The file contents live on a tmpfs of
 * 1 MiB mounted for the test, which needs root; elsewhere the test is skipped, saying so.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_FILE } from '../../src/platform/blob-owner.js';
import { TOKENS, bearer, createProject, multipart, startServer, type TestServer } from './helpers.js';
import { mountSmallDisk } from '../reliability/small-disk.js';

const disk = mountSmallDisk('1m');
if (typeof disk === 'string') console.warn(`SKIPPED: the full-disk upload test: ${disk}`);

describe.skipIf(typeof disk === 'string')('an upload that fills the disk', () => {
  const { dir, unmount } = disk as Exclude<typeof disk, string>;
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ blobDir: path.join(dir, 'blobs') });
    await createProject(server.app, 'lab', 'disk');
  });
  afterAll(async () => {
    await server?.close();
    unmount();
  });

  const upload = async (name: string, bytes: number) => {
    const { payload, headers } = await multipart(name, Buffer.alloc(bytes, 7));
    return server.app.inject({ method: 'POST', url: '/v1/files/lab/disk', headers: { ...headers, ...bearer(TOKENS.alice) }, payload });
  };
  /** File contents stored (content-addressed under sha256/). */
  const stored = () => readdirSync(path.join(dir, 'blobs'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && entry.name !== OWNER_FILE).length;

  it('is refused with 507, leaves nothing behind, and an upload that fits is taken after it', async () => {
    const refused = await upload('too-big.bin', 2 * 1024 * 1024);
    expect(refused.statusCode).toBe(507);
    expect(refused.json()).toMatchObject({ '@type': 'InsufficientStorage' });
    expect(stored()).toBe(0);
    expect((await upload('fits.bin', 64 * 1024)).statusCode).toBe(201);
    expect(stored()).toBe(1);
  });
});
