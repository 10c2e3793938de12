/**
 * A disk filling up under concurrent writes (six clients writing resources and uploading files, the store and the
 * file contents on one small disk): every answer is 201 or 507, the process lives on, and every acknowledged write
 * reads back once there is room. LMDB meeting the full disk under such load had aborted the process with heap
 * corruption ("corrupted size vs. prev_size", exit 134), no line written; the store now refuses writes (507) while
 * its device has less than its 8 MiB reserve free. The disk is a tmpfs mounted for the test, which needs root.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { multipart } from '../platform/helpers.js';
import { FIXTURE_ARTICLES } from '../http/app-fixture.js';
import { writeIndex } from '../search/helpers.js';
import { admin, adminJson, kill, spawnServerProcess, startServerProcess, writeAdminAuthFile, type ServerProcess } from './server-process.js';
import { mountSmallDisk } from './small-disk.js';

const disk = mountSmallDisk('64m');
if (typeof disk === 'string') console.warn(`SKIPPED: the concurrent full-disk test: ${disk}`);

const CLIENTS = 6;

describe.skipIf(typeof disk === 'string')('a disk filling up under concurrent writes', () => {
  const { dir, unmount } = disk as Exclude<typeof disk, string>;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    if (server) await kill(server);
    unmount();
  });

  it('answers every write 201 or 507, stays up, and keeps every write it acknowledged', async () => {
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir);
    await writeIndex(path.join(dir, 'index'), FIXTURE_ARTICLES);
    server = await startServerProcess({ dataDir, indexDir: path.join(dir, 'index'), authFile: await writeAdminAuthFile(dir) });
    const { base } = server;
    for (const [url, body] of [['/v1/orgs/lab', {}], ['/v1/projects/lab/disk', {}]] as const) {
      expect((await fetch(`${base}${url}`, { method: 'PUT', headers: adminJson, body: JSON.stringify(body) })).status).toBe(201);
    }
    const acknowledged: string[] = [];
    const statuses = new Set<number>();
    const write = async (client: number, n: number) => {
      if (n % 2 === 0) {
        const response = await fetch(`${base}/v1/resources/lab/disk/_/r${client}-${n}`, { method: 'PUT', headers: adminJson, body: JSON.stringify({ text: 'x'.repeat(2048) }) });
        statuses.add(response.status);
        if (response.status === 201) acknowledged.push(`/v1/resources/lab/disk/_/r${client}-${n}`);
      } else {
        const { payload, headers } = await multipart(`f${client}-${n}.bin`, Buffer.alloc(64 * 1024, n % 251), 'application/octet-stream');
        const response = await fetch(`${base}/v1/files/lab/disk/f${client}-${n}`, { method: 'PUT', headers: { ...admin, ...headers }, body: payload });
        statuses.add(response.status);
        if (response.status === 201) acknowledged.push(`/v1/files/lab/disk/f${client}-${n}`);
      }
    };
    // An abort ends the process by a signal: its exit code stays null.
    const alive = () => server!.child.exitCode === null && server!.child.signalCode === null;
    let filled = false;
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; n < 200 && alive(); n++) {
        // A few writes in, the disk is filled to 2 MiB free under the clients, which go on writing.
        if (n === 5 && client === 0 && !filled) {
          filled = true;
          const { bavail, bsize } = statfsSync(dir);
          execFileSync('fallocate', ['-l', String(bavail * bsize - 2 * 1024 * 1024), path.join(dir, 'filler')]);
        }
        await write(client, n).catch(() => statuses.add(0));
      }
    });
    await Promise.all(clients);
    expect({ code: server.child.exitCode, signal: server.child.signalCode }, server.output()).toEqual({ code: null, signal: null });
    expect([...statuses].sort()).toEqual([201, 507]);

    rmSync(path.join(dir, 'filler'));
    for (const url of acknowledged) expect([url, (await fetch(`${base}${url}`, { headers: admin })).status]).toEqual([url, 200]);
    expect((await fetch(`${base}/v1/resources/lab/disk/_/after`, { method: 'PUT', headers: adminJson, body: '{}' })).status).toBe(201);
  }, 120_000);

  it('refuses to make a new store on a full disk, saying so (it had died of SIGSEGV or SIGBUS without a line)', async () => {
    await kill(server!);
    rmSync(path.join(dir, 'filler'), { force: true });
    const { bavail, bsize } = statfsSync(dir);
    execFileSync('fallocate', ['-l', String(bavail * bsize - 2 * 1024 * 1024), path.join(dir, 'filler')]);
    const fresh = path.join(dir, 'fresh');
    mkdirSync(fresh);
    server = await spawnServerProcess({ dataDir: fresh, indexDir: path.join(dir, 'index'), authFile: path.join(dir, 'auth.json') });
    expect(await server.exited, server.output()).toBe(1);
    expect(server.output()).toMatch(/ENOSPC: [\d.]+ MiB left on the device of the new platform store .*, under the 8 MiB it keeps free; free space/);
    rmSync(path.join(dir, 'filler'));
  }, 60_000);
});
