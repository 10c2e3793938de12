/**
 * Resource writes that fill the disk of the embedded (LMDB) store: 507 InsufficientStorage (it was a
 * 500 "Input/output error": LMDB reports a full disk as EIO), the commit aborted and what was written
 * kept, and writes taken again once there is room. The data directory is on a tmpfs mounted for the
 * test, which needs root; elsewhere the test is skipped, saying so.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, bearer, createProject, startServer, type TestServer } from '../platform/helpers.js';
import { mountSmallDisk } from './small-disk.js';

// Room for the store's 8 MiB reserve and a few writes above it.
const disk = mountSmallDisk('16m');
if (typeof disk === 'string') console.warn(`SKIPPED: the full-disk store test: ${disk}`);

describe.skipIf(typeof disk === 'string')('resource writes that fill the embedded store\'s disk', () => {
  const { dir, unmount } = disk as Exclude<typeof disk, string>;
  let server: TestServer;
  const filler = path.join(dir, 'filler');

  beforeAll(async () => {
    mkdirSync(path.join(dir, 'data'));
    server = await startServer({ dataDir: path.join(dir, 'data') });
    await createProject(server.app, 'lab', 'store');
    // Room to free once the disk is full.
    writeFileSync(filler, Buffer.alloc(2 * 1024 * 1024));
  });
  afterAll(async () => {
    await server?.stop();
    unmount();
  });

  const put = (id: string) =>
    server.app.inject({ method: 'PUT', url: `/v1/resources/lab/store/_/${id}`, headers: bearer(TOKENS.alice), payload: { name: id, text: 'x'.repeat(256 * 1024) } });

  it('are refused with 507 once it is full, keep what was written, and are taken again once there is room', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40 && !statuses.includes(507); i++) statuses.push((await put(`r${i}`)).statusCode);
    expect(statuses.at(-1)).toBe(507);
    expect(statuses.slice(0, -1).every((status) => status === 201)).toBe(true);
    const refused = await put('refused');
    expect([refused.statusCode, refused.json()['@type']]).toEqual([507, 'InsufficientStorage']);
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/lab/store/_/r0', headers: bearer(TOKENS.alice) })).statusCode).toBe(200);
    rmSync(filler);
    expect((await put('after')).statusCode).toBe(201);
    expect((await server.app.inject({ method: 'GET', url: '/v1/resources/lab/store/_/after', headers: bearer(TOKENS.alice) })).json().name).toBe('after');
  });
});
