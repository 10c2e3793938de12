/**
 * Two servers on one PostgreSQL store and one blob directory behave as one:
 * a write acknowledged by one is read by the other, revision checks and id
 * creation hold across them, an ACL grant on one takes effect on the other
 * within the documented bound, files and archives made on one are served by
 * the other, and a replica killed mid-write loses no acknowledged write while
 * the other keeps serving. Runs in the `postgresql` test project only.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FIXTURE_ARTICLES } from '../http/app-fixture.js';
import { schemaUrl } from '../postgres/cluster.js';
import { admin, adminJson, kill, startServerProcess, writeAdminAuthFile } from '../reliability/server-process.js';
import { tempDir, writeIndex } from '../search/helpers.js';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';
import { testPostgresUrl } from '../postgres/project.js';

/** How long an ACL change may take to reach another replica (docs/DEPLOY.md): a notice normally arrives within milliseconds. */
const ACL_PROPAGATION_BOUND_MS = 2000;

const alice = bearer(TOKENS.alice);
const bob = bearer(TOKENS.bob);
let a: TestServer;
let b: TestServer;
let blobDir: string;

beforeAll(async () => {
  blobDir = await mkdtemp(path.join(tmpdir(), 'replica-blobs-'));
  const sharedStore = `replicas-${process.pid}-${Date.now()}`;
  a = await startServer({ sharedStore, blobDir });
  b = await startServer({ sharedStore, blobDir });
  await createProject(a.app, 'org', 'proj');
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await rm(blobDir, { recursive: true, force: true });
});

const resource = (server: TestServer, method: string, id: string, headers = alice, payload?: object, query = '') =>
  server.app.inject({ method, url: `/v1/resources/org/proj/_/${id}${query}`, headers, ...(payload && { payload }) });

describe('two replicas on one PostgreSQL store', () => {
  test('a resource created on A is read on B', async () => {
    expect((await resource(a, 'PUT', 'made-on-a', alice, { name: 'from A' })).statusCode).toBe(201);
    const read = await resource(b, 'GET', 'made-on-a');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ name: 'from A', _rev: 1 });
  });

  test('an update on B with the current rev wins; the same rev then sent to A is 409', async () => {
    expect((await resource(a, 'PUT', 'revised', alice, { name: 'v1' })).statusCode).toBe(201);
    expect((await resource(b, 'PUT', 'revised', alice, { name: 'v2 from B' }, '?rev=1')).statusCode).toBe(200);
    const stale = await resource(a, 'PUT', 'revised', alice, { name: 'v2 from A' }, '?rev=1');
    expect(stale.statusCode).toBe(409);
    expect(stale.json()['@type']).toBe('IncorrectRev');
    expect((await resource(a, 'GET', 'revised')).json()).toMatchObject({ name: 'v2 from B', _rev: 2 });
  });

  test('20 concurrent creations of one id, split across A and B: exactly one 201, the rest 409', async () => {
    const attempts = Array.from({ length: 20 }, (_, i) => resource(i % 2 === 0 ? a : b, 'PUT', 'contested', alice, { attempt: i }));
    const statuses = (await Promise.all(attempts)).map((response) => response.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    expect((await resource(b, 'GET', 'contested')).json()._rev).toBe(1);
  });

  test(`an ACL grant made on A takes effect on B within ${ACL_PROPAGATION_BOUND_MS} ms`, async () => {
    expect((await resource(b, 'PUT', 'by-bob', bob, { name: 'bob' })).statusCode).toBe(403);
    const current = (await a.app.inject({ method: 'GET', url: '/v1/acls/org/proj?self=false', headers: alice })).json()._results[0]?._rev ?? 0;
    const grant = { acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'bob' }, permissions: ['resources/write'] }] };
    const granted = await a.app.inject({ method: 'PUT', url: `/v1/acls/org/proj?rev=${current}`, headers: alice, payload: grant });
    expect(granted.statusCode).toBeLessThan(300);
    const deadline = Date.now() + ACL_PROPAGATION_BOUND_MS;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await resource(b, 'PUT', 'by-bob', bob, { name: 'bob' })).statusCode;
      if (status !== 403) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(201);
  });

  test('a file uploaded on A downloads byte-identical from B', async () => {
    const content = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    const body = await multipart('data.bin', content);
    const uploaded = await a.app.inject({ method: 'PUT', url: '/v1/files/org/proj/shared-file', headers: { ...alice, ...body.headers }, payload: body.payload });
    expect(uploaded.statusCode).toBe(201);
    const downloaded = await b.app.inject({ method: 'GET', url: '/v1/files/org/proj/shared-file', headers: { ...alice, accept: '*/*' } });
    expect(downloaded.statusCode).toBe(200);
    expect(downloaded.rawPayload.equals(content)).toBe(true);
  });

  test('an archive created on A downloads as a ZIP from B', async () => {
    expect((await resource(a, 'PUT', 'archived', alice, { name: 'in the archive' })).statusCode).toBe(201);
    const body = await multipart('archived.txt', 'archived file content', 'text/plain');
    expect((await a.app.inject({ method: 'PUT', url: '/v1/files/org/proj/archived-file', headers: { ...alice, ...body.headers }, payload: body.payload })).statusCode).toBe(201);
    const definition = { resources: [{ '@type': 'File', resourceId: 'archived-file' }, { '@type': 'Resource', resourceId: 'archived' }] };
    const created = await a.app.inject({ method: 'PUT', url: '/v1/archives/org/proj/bundle', headers: { ...alice, accept: 'application/json' }, payload: definition });
    expect(created.statusCode).toBe(201);
    const zip = await b.app.inject({ method: 'GET', url: '/v1/archives/org/proj/bundle', headers: { ...alice, accept: 'application/zip' } });
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toContain('application/zip');
    expect(zip.rawPayload.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    expect(zip.rawPayload.includes(Buffer.from('archived.txt'))).toBe(true);
  });
});

describe('a replica killed mid-write', () => {
  test('SIGKILL of A while it writes loses no acknowledged write, and B keeps serving', async () => {
    const { dir, cleanup } = await tempDir('litserve-replica-kill-');
    const indexDir = path.join(dir, 'index');
    await writeIndex(indexDir, FIXTURE_ARTICLES);
    const authFile = await writeAdminAuthFile(dir);
    const store = await schemaUrl(testPostgresUrl()!, `kill-${dir}`);
    const sharedBlobs = path.join(dir, 'blobs');
    const flags = ['--platform-store', store, '--blob-dir', sharedBlobs];
    const replicaA = await startServerProcess({ dataDir: path.join(dir, 'a'), indexDir, authFile, extraFlags: flags });
    const replicaB = await startServerProcess({ dataDir: path.join(dir, 'b'), indexDir, authFile, extraFlags: flags });
    try {
      for (const url of ['/v1/orgs/lab', '/v1/projects/lab/a']) expect((await fetch(`${replicaA.base}${url}`, { method: 'PUT', headers: adminJson, body: '{}' })).status).toBe(201);
      const acknowledged: string[] = [];
      let dead = false;
      const writer = async (worker: number) => {
        for (let i = 0; !dead; i++) {
          const id = `w${worker}-${i}`;
          try {
            const response = await fetch(`${replicaA.base}/v1/resources/lab/a/_/${id}`, { method: 'PUT', headers: adminJson, body: JSON.stringify({ name: id }) });
            if (response.status === 201) acknowledged.push(id);
          } catch {
            return; // A is gone
          }
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await kill(replicaA);
      dead = true;
      await Promise.all(writers);
      expect(acknowledged.length).toBeGreaterThan(0);
      for (const id of acknowledged) {
        const read = await fetch(`${replicaB.base}/v1/resources/lab/a/_/${id}`, { headers: admin });
        expect(read.status, id).toBe(200);
        expect(((await read.json()) as { name: string }).name).toBe(id);
      }
      const after = await fetch(`${replicaB.base}/v1/resources/lab/a/_/after-the-kill`, { method: 'PUT', headers: adminJson, body: '{"name":"B serves"}' });
      expect(after.status).toBe(201);
    } finally {
      if (replicaA.child.exitCode === null && replicaA.child.signalCode === null) await kill(replicaA);
      await kill(replicaB);
      await cleanup();
    }
  });
});
