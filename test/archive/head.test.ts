/**
 * HEAD on an archive answers what GET would (status and headers), settled
 * before the first byte, without producing the ZIP: Fastify reads a stream
 * given to a HEAD reply to its end and discards it, whatever its size and
 * whether or not the client is still there.
 */
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { Download } from '../../src/archive/download.js';
import { TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';
import { createArchive } from './archive-fixture.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);
let archivePath: string;

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'r1' } });
  archivePath = await createArchive(server.app, 'head', [{ '@type': 'Resource', resourceId: 'r1' }, { '@type': 'Resource', resourceId: 'missing', path: '/missing.json' }]);
});
afterAll(() => server.close());

/** Watches the streams the archive service hands out for downloads. */
function watchStreams(): { opened: Readable[] } {
  const watched = { opened: [] as Readable[] };
  const download = server.archives.download.bind(server.archives);
  vi.spyOn(server.archives, 'download').mockImplementation(async (...args) => {
    const prepared: Download = await download(...args);
    return {
      ...prepared,
      stream: (onError) => {
        const stream = prepared.stream(onError);
        watched.opened.push(stream);
        return stream;
      },
    };
  });
  return watched;
}

test('HEAD answers the headers of the ZIP without producing it', async () => {
  const watched = watchStreams();
  const head = await server.app.inject({ method: 'HEAD', url: `${archivePath}?ignoreNotFound=true`, headers: alice });
  expect(head.statusCode).toBe(200);
  expect(head.headers['content-type']).toBe('application/zip');
  expect(head.headers['content-disposition']).toBe('attachment; filename="archive.zip"');
  // Not `0`: the GET body is not empty, and its length is not known in advance.
  expect(head.headers['content-length']).toBeUndefined();
  expect(head.rawPayload).toHaveLength(0);
  expect(watched.opened).toHaveLength(0);

  const get = await server.app.inject({ method: 'GET', url: `${archivePath}?ignoreNotFound=true`, headers: alice });
  expect(get.statusCode).toBe(200);
  expect(watched.opened).toHaveLength(1);
  vi.restoreAllMocks();
});

test('HEAD fails as GET does, before the first byte', async () => {
  const head = await server.app.inject({ method: 'HEAD', url: archivePath, headers: alice });
  const get = await server.app.inject({ method: 'GET', url: archivePath, headers: alice });
  expect(get.statusCode).toBe(404);
  expect(head.statusCode).toBe(404);
  expect(head.headers['content-type']).toBe(get.headers['content-type']);
});
