/**
 * A PostgreSQL platform store that goes away while the server runs: /v1 answers 503 ServiceUnavailable
 * with Retry-After (it had been 500 UnexpectedError), nothing is half-written, the literature routes go
 * on answering from the ACLs held in memory, and the server serves /v1 again once the database is back.
 * A database that cannot be reached at start is named with its setting, its password hidden.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, postgresUnavailable, schemaUrl, startCluster } from '../postgres/cluster.js';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { openPostgresStore } from '../../src/platform/store/postgres.js';
import { capturingLogger } from '../http/captured-log.js';

const TOKEN = 'store-unavailable-admin';
const AUTH = { tokens: { [TOKEN]: { realm: 'local', subject: 'admin' } }, acls: { '/': { 'local/admin': ['*'] } } };
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

describe.skipIf(postgresUnavailable() !== null)('a platform store that goes away', () => {
  let cluster: Cluster;
  let fixture: Fixture;

  beforeAll(async () => {
    cluster = startCluster();
    const url = await schemaUrl(cluster.url, 'store-unavailable');
    fixture = await fixtureApp(undefined, {}, { auth: AUTH, flags: ['--platform-store', url] });
  });
  afterAll(async () => {
    await fixture?.close();
    cluster?.stop();
  });

  const request = (method: 'GET' | 'PUT', url: string, payload?: object) => fixture.app.inject({ method, url, headers, ...(payload && { payload }) });

  it('answers /v1 with 503 and Retry-After while the database is down, keeps the literature routes, and recovers', async () => {
    expect((await request('PUT', '/v1/orgs/lab', {})).statusCode).toBe(201);
    expect((await request('PUT', '/v1/projects/lab/a', {})).statusCode).toBe(201);
    expect((await request('PUT', '/v1/resources/lab/a/_/before', { name: 'before' })).statusCode).toBe(201);

    cluster.halt();
    for (const [method, url, payload] of [
      ['GET', '/v1/projects/lab/a'],
      ['GET', '/v1/resources/lab/a/_/before'],
      ['GET', '/v1/resources/lab/a'],
      ['PUT', '/v1/resources/lab/a/_/during', { name: 'during' }],
    ] as const) {
      const response = await request(method, url, payload);
      expect([method, url, response.statusCode, response.json()['@type']]).toEqual([method, url, 503, 'ServiceUnavailable']);
      expect(response.headers['retry-after']).toBe('5');
    }
    const literature = await fixture.app.inject({ method: 'GET', url: '/retrieval/?query=place%20cells&retriever_k=2', headers });
    expect(literature.statusCode).toBe(200);

    cluster.resume();
    // The pool opens new connections on demand: the first request after the restart is served.
    expect((await request('GET', '/v1/resources/lab/a/_/before')).statusCode).toBe(200);
    expect((await request('GET', '/v1/resources/lab/a/_/during')).statusCode).toBe(404);
    expect((await request('PUT', '/v1/resources/lab/a/_/after', { name: 'after' })).statusCode).toBe(201);
  });
});

describe('a platform store that cannot be reached at start', () => {
  it('names the setting and the URL, without its password', async () => {
    const quiet = { info: () => undefined, warn: () => undefined };
    const opening = openPostgresStore('postgresql://bob:secret@127.0.0.1:1/db', quiet);
    await expect(opening).rejects.toThrow("cannot reach the platform store's database (--platform-store postgresql://bob:***@127.0.0.1:1/db): connect ECONNREFUSED");
    // A socket URL with an empty host, which pg takes and WHATWG's URL parser refuses: named too, still without its password.
    const socket = openPostgresStore('postgresql://bob:s3cr@t@/db?host=/nonexistent-litserve', quiet);
    await expect(socket).rejects.toThrow("(--platform-store postgresql://bob:***@/db?host=/nonexistent-litserve): connect ENOENT");
    await expect(opening).rejects.not.toThrow(/secret/);
    // pg also reads a password from the query: masked there too.
    const queryPassword = openPostgresStore('postgresql://bob@127.0.0.1:1/db?password=p%40ss&sslmode=disable', quiet);
    await expect(queryPassword).rejects.toThrow('(--platform-store postgresql://bob@127.0.0.1:1/db?password=***&sslmode=disable): connect ECONNREFUSED');
  });
});

describe.skipIf(postgresUnavailable() !== null)('a platform store that goes away during an archive download', () => {
  let cluster: Cluster;
  let fixture: Fixture;
  const log = capturingLogger();

  beforeAll(async () => {
    cluster = startCluster();
    const url = await schemaUrl(cluster.url, 'store-away-download');
    fixture = await fixtureApp(undefined, {}, { auth: AUTH, flags: ['--platform-store', url], logger: log.logger });
  });
  afterAll(async () => {
    await fixture?.close();
    cluster?.stop();
  });

  it('cuts the download with one warn line naming the cause, not an error with a stack', async () => {
    const put = (url: string, payload: object) => fixture.app.inject({ method: 'PUT', url, headers, payload });
    expect((await put('/v1/orgs/lab', {})).statusCode).toBe(201);
    expect((await put('/v1/projects/lab/a', {})).statusCode).toBe(201);
    // Enough payload that the ZIP is still being written when the database goes: each entry is read again as it is written.
    const ids = Array.from({ length: 60 }, (_, i) => `r${i}`);
    for (const id of ids) expect((await put(`/v1/resources/lab/a/_/${id}`, { text: `${id} `.repeat(40_000) })).statusCode).toBe(201);
    // No Accept: the creation answers 303 to the archive.
    expect((await put('/v1/archives/lab/a/all', { resources: ids.map((id) => ({ '@type': 'Resource', resourceId: id })) })).statusCode).toBe(303);

    const base = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
    const response = await fetch(`${base}/v1/archives/lab/a/all`, { headers: { authorization: headers.authorization, accept: 'application/zip' } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    cluster.halt();
    try {
      let received = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.length;
      }
      // Cut short, or ended: either way the log says why, below.
      expect(received).toBeLessThan(60 * 400_000);
    } catch {
      // the connection cut by the server
    } finally {
      cluster.resume();
    }
    await expect.poll(() => log.lines.some((line) => line.msg.startsWith('response cut by the server'))).toBe(true);
    const unavailable = log.lines.filter((line) => line.msg === 'platform store unavailable');
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable[0]).toMatchObject({ level: 40, archive: expect.any(String), cause: expect.any(String) });
    expect(unavailable[0]).not.toHaveProperty('err');
    expect(log.lines.filter((line) => line.level >= 50)).toEqual([]);
  }, 120_000);
});
