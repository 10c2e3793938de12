/**
 * Uploads on a disk with bytes to spare but no inode left: 507 InsufficientStorage, saying that inodes ran out (they
 * were 500 "ENOENT: no such file or directory, mkdir …/sha256/38": Node's recursive mkdir reports a parent it could
 * not create so), nothing half-written, and uploads taken again once there are inodes. The file contents live on a
 * tmpfs of few inodes mounted for the test, which needs root; elsewhere the test is skipped, saying so.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_FILE } from '../../src/platform/blob-owner.js';
import { TOKENS, bearer, createProject, multipart, startServer, type TestServer } from './helpers.js';
import { mountSmallDisk } from '../reliability/small-disk.js';

const disk = mountSmallDisk('8m', 40);
if (typeof disk === 'string') console.warn(`SKIPPED: the no-inode upload test: ${disk}`);

describe.skipIf(typeof disk === 'string')('uploads on a disk out of inodes', () => {
  const { dir, unmount } = disk as Exclude<typeof disk, string>;
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ blobDir: path.join(dir, 'blobs') });
    await createProject(server.app, 'lab', 'inodes');
  });
  afterAll(async () => {
    await server?.close();
    unmount();
  });

  const upload = async (n: number) => {
    const { payload, headers } = await multipart(`f${n}.txt`, `content number ${n}`, 'text/plain');
    return server.app.inject({ method: 'POST', url: '/v1/files/lab/inodes', headers: { ...headers, ...bearer(TOKENS.alice) }, payload });
  };
  const stored = () => readdirSync(path.join(dir, 'blobs'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && entry.name !== OWNER_FILE).length;

  it('are refused with 507 once no inode is left, and taken again once some are freed', async () => {
    // Inodes to free once none is left: each new content takes a file and up to two folders (sha256/ab/cd/).
    const spares = [0, 1, 2].map((n) => path.join(dir, `spare${n}`));
    for (const spare of spares) writeFileSync(spare, '');
    const statuses: number[] = [];
    let refused;
    for (let n = 0; n < 40 && refused === undefined; n++) {
      const answer = await upload(n);
      statuses.push(answer.statusCode);
      if (answer.statusCode !== 201) refused = answer;
    }
    expect(refused?.statusCode, refused?.body).toBe(507);
    expect(refused!.json()).toMatchObject({ '@type': 'InsufficientStorage' });
    expect(stored()).toBe(statuses.filter((status) => status === 201).length);
    for (const spare of spares) rmSync(spare);
    expect((await upload(1000)).statusCode).toBe(201);
    expect(stored()).toBe(statuses.filter((status) => status === 201).length + 1);
  });
});
