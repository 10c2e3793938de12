/**
 * A server started anew on a store whose disk is full: its first resource writes are refused with 507, and the
 * writes it acknowledges once there is room are kept, readable then and after another start. The first write of a
 * process had opened the store's tables inside its commit; the full disk aborted that commit, and with it the tables'
 * handles, which later commits used all the same: they answered 201 and stored nothing readable (500 at every read,
 * for good). The data directory is on a tmpfs mounted for the test, which needs root; elsewhere it is skipped.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOKENS, bearer, createProject, startServer, type TestServer } from '../platform/helpers.js';
import { fillDisk, mountSmallDisk } from './small-disk.js';

// Room for the store's 8 MiB reserve and a few writes above it.
const disk = mountSmallDisk('24m');
if (typeof disk === 'string') console.warn(`SKIPPED: the full-disk restart test: ${disk}`);

describe.skipIf(typeof disk === 'string')('a store restarted on a full disk', () => {
  const { dir, unmount } = disk as Exclude<typeof disk, string>;
  const dataDir = path.join(dir, 'data');
  const filler = path.join(dir, 'room');
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
    unmount();
  });

  const put = (id: string) => server!.app.inject({ method: 'PUT', url: `/v1/resources/lab/store/_/${id}`, headers: bearer(TOKENS.alice), payload: { name: id } });
  const read = (id: string) => server!.app.inject({ method: 'GET', url: `/v1/resources/lab/store/_/${id}`, headers: bearer(TOKENS.alice) });

  it('refuses its first writes with 507, and keeps those it acknowledges once there is room', async () => {
    mkdirSync(dataDir);
    server = await startServer({ dataDir });
    await createProject(server.app, 'lab', 'store');
    expect((await put('before')).statusCode).toBe(201);
    await server.stop();

    server = await startServer({ dataDir });
    writeFileSync(filler, Buffer.alloc(12 * 1024 * 1024));
    await fillDisk(dir);
    const refused = await Promise.all(['full1', 'full2', 'full3'].map(async (id) => (await put(id)).statusCode));
    expect(refused).toEqual([507, 507, 507]);
    rmSync(filler);
    expect((await put('after')).statusCode).toBe(201);
    rmSync(path.join(dir, 'filler'));
    for (const id of ['before', 'after']) expect([id, (await read(id)).statusCode]).toEqual([id, 200]);
    for (const id of ['full1', 'full2', 'full3']) expect([id, (await read(id)).statusCode]).toEqual([id, 404]);
    await server.stop();

    server = await startServer({ dataDir });
    for (const id of ['before', 'after']) expect([id, (await read(id)).json().name]).toEqual([id, id]);
  });
});
