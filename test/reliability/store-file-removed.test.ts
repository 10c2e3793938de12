/**
 * The embedded store's file removed (or moved away) under a running server: writes are refused with 503, nothing
 * acknowledged is lost, and writes are taken again once the file is back. The process had written on in the
 * unlinked file, acknowledged each write with 201, and lost them all at the next start.
 */
import { renameSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, bearer, createProject, startServer, type TestServer } from '../platform/helpers.js';

describe("the embedded store's file taken away under a running server", () => {
  let server: TestServer;
  let storeFile: string;
  beforeAll(async () => {
    server = await startServer();
    storeFile = path.join(server.dataDir, 'platform', 'store', 'data.mdb');
    await createProject(server.app, 'lab', 'store');
  });
  afterAll(() => server?.close());

  const put = (id: string) => server.app.inject({ method: 'PUT', url: `/v1/resources/lab/store/_/${id}`, headers: bearer(TOKENS.alice), payload: { name: id } });
  const read = (id: string) => server.app.inject({ url: `/v1/resources/lab/store/_/${id}`, headers: bearer(TOKENS.alice) });

  it('refuses writes with 503 while it is away, and takes them again once it is back', async () => {
    expect((await put('before')).statusCode).toBe(201);
    renameSync(storeFile, `${storeFile}.aside`);
    const refused = await put('while-away');
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ '@type': 'ServiceUnavailable' });
    expect(refused.json().reason).toMatch(/^The platform store's file was removed or replaced while the server ran/);
    expect(refused.headers['retry-after']).toBeDefined();
    renameSync(`${storeFile}.aside`, storeFile);
    expect((await put('after')).statusCode).toBe(201);
    expect((await read('before')).statusCode).toBe(200);
    expect((await read('while-away')).statusCode).toBe(404);
    expect((await read('after')).statusCode).toBe(200);
  });
});
