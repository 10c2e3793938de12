/**
 * PostgreSQL stopped and started again while two replicas write to it from several clients: the
 * replicas go on running (a connection lost under a write had been an unhandled 'error' event, which
 * ends a server process), answer only 2xx or 503 with Retry-After meanwhile (pg's words for a broken
 * connection had been 500s), lose no acknowledged write, serve again once the database is back without
 * a restart, and hear each other's ACL changes again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';
import { type Cluster, postgresUnavailable, startCluster } from './cluster.js';

// The replicas' store is a cluster of this file's own, which it stops and starts.
const own = vi.hoisted(() => ({ clusterUrl: '' }));
vi.mock('./project.js', () => ({ testPostgresUrl: () => own.clusterUrl }));

const CLIENTS = 6;
const alice = bearer(TOKENS.alice);
const bob = bearer(TOKENS.bob);

describe.skipIf(postgresUnavailable() !== null)('PostgreSQL restarted under load', () => {
  let cluster: Cluster;
  let blobDir: string;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    cluster = startCluster();
    own.clusterUrl = cluster.url;
    blobDir = await mkdtemp(path.join(tmpdir(), 'restart-blobs-'));
    a = await startServer({ sharedStore: 'restart-under-load', blobDir });
    b = await startServer({ sharedStore: 'restart-under-load', blobDir });
    await createProject(a.app, 'org', 'proj');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    cluster?.stop();
    await rm(blobDir, { recursive: true, force: true });
  });

  test('2xx or 503 with Retry-After throughout, every acknowledged write kept, then served and hearing ACL changes again', async () => {
    const acknowledged: string[] = [];
    const answers = new Set<string>();
    let running = true;
    const client = async (worker: number) => {
      const replica = worker % 2 === 0 ? a : b;
      for (let i = 0; running; i++) {
        const id = `c${worker}-${i}`;
        const response =
          i % 3 === 2
            ? await replica.app.inject({ method: 'GET', url: '/v1/resources/org/proj?size=5', headers: alice })
            : await replica.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload: { name: id } });
        answers.add(response.statusCode === 503 ? `503 ${response.json()['@type']} retry-after ${response.headers['retry-after']}` : String(response.statusCode));
        if (response.statusCode === 201) acknowledged.push(id);
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, worker) => client(worker));
    const waitForWrites = async (count: number) => {
      while (acknowledged.length < count) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await waitForWrites(20);
    cluster.halt();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    cluster.resume();
    await waitForWrites(acknowledged.length + 20);
    running = false;
    await Promise.all(clients);

    expect([...answers].sort()).toEqual(['200', '201', '503 ServiceUnavailable retry-after 5']);
    for (const id of acknowledged) {
      const read = await b.app.inject({ method: 'GET', url: `/v1/resources/org/proj/_/${id}`, headers: alice });
      expect([id, read.statusCode]).toEqual([id, 200]);
    }
    // B's LISTEN connection came back: a grant made on A takes effect on B.
    const grant = { acl: [{ identity: { '@type': 'User', realm: 'local', subject: 'bob' }, permissions: ['resources/write'] }] };
    expect((await a.app.inject({ method: 'PUT', url: '/v1/acls/org/proj?rev=1', headers: alice, payload: grant })).statusCode).toBe(200);
    let status = 403;
    while (status === 403) {
      status = (await b.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/by-bob', headers: bob, payload: {} })).statusCode;
      if (status === 403) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(201);
  });
});
