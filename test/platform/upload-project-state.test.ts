/**
 * A file upload takes its time; the project may be deprecated, marked for deletion or have its
 * organization deprecated before its bytes are all in. The project is checked again when the file
 * is committed: the upload is refused as a write started then would be, and its bytes are removed.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BlobStore } from '../../src/platform/blobs.js';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';
import { until } from '../until.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);
const BOUNDARY = 'slow-upload-boundary';

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function storedContents(): Promise<string[]> {
  const root = path.join(server.dataDir, 'platform', 'files', 'sha256');
  const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  return entries.map((entry) => path.basename(entry)).filter((name) => /^[0-9a-f]{64}$/.test(name)).sort();
}

async function uploadsInProgress(): Promise<number> {
  return (await readdir(path.join(server.dataDir, 'platform', 'files', 'tmp'))).length;
}

/**
 * PUTs `content` to `url` as a multipart body sent in two halves: `meanwhile` runs once the server
 * streams the first half into the content store (every check made at the start has passed).
 */
async function slowUpload(url: string, content: string, meanwhile: () => Promise<unknown>) {
  const body = new PassThrough();
  const response = server.app.inject({
    method: 'PUT',
    url,
    headers: { ...alice, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: body,
  });
  const half = Math.floor(content.length / 2);
  body.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="data.txt"\r\nContent-Type: text/plain\r\n\r\n${content.slice(0, half)}`);
  await until(async () => (await uploadsInProgress()) > 0);
  await meanwhile();
  body.end(`${content.slice(half)}\r\n--${BOUNDARY}--\r\n`);
  return response;
}

async function expectNothingStored(before: string[], url: string): Promise<void> {
  expect(await storedContents()).toEqual(before);
  expect(await uploadsInProgress()).toBe(0);
  expect((await server.app.inject({ method: 'GET', url, headers: alice })).statusCode).toBe(404);
}

test('a project deprecated during an upload refuses it when it commits, and keeps none of its bytes', async () => {
  await createProject(server.app, 'org', 'deprecated');
  const before = await storedContents();
  const response = await slowUpload('/v1/files/org/deprecated/late', 'bytes sent before and after the deprecation', () =>
    server.app.inject({ method: 'DELETE', url: '/v1/projects/org/deprecated?rev=1', headers: alice }),
  );
  expect(response.statusCode).toBe(400);
  expect(response.json()['@type']).toBe('ProjectIsDeprecated');
  await expectNothingStored(before, '/v1/files/org/deprecated/late');
});

test('a project marked for deletion during an upload refuses it when it commits', async () => {
  await createProject(server.app, 'org', 'pruned');
  const before = await storedContents();
  const response = await slowUpload('/v1/files/org/pruned/late', 'bytes sent before and after the deletion', () =>
    server.app.inject({ method: 'DELETE', url: '/v1/projects/org/pruned?rev=1&prune=true', headers: alice }),
  );
  expect(response.statusCode).toBe(400);
  expect(response.json()['@type']).toBe('ProjectIsMarkedForDeletion');
  expect(await storedContents()).toEqual(before);
  expect(await uploadsInProgress()).toBe(0);
});

test('an update whose project is deprecated meanwhile is refused, and the file keeps its revision', async () => {
  await createProject(server.app, 'org', 'updated');
  const first = await multipart('data.txt', 'first content', 'text/plain');
  const created = await server.app.inject({ method: 'PUT', url: '/v1/files/org/updated/f', headers: { ...alice, ...first.headers }, payload: first.payload });
  expect(created.statusCode).toBe(201);
  const before = await storedContents();
  const response = await slowUpload('/v1/files/org/updated/f?rev=1', 'second content, never committed', () =>
    server.app.inject({ method: 'DELETE', url: '/v1/projects/org/updated?rev=1', headers: alice }),
  );
  expect(response.json()['@type']).toBe('ProjectIsDeprecated');
  expect(await storedContents()).toEqual(before);
  const download = await server.app.inject({ method: 'GET', url: '/v1/files/org/updated/f', headers: alice });
  expect(download.body).toBe('first content');
});

test('a refused upload whose bytes another file holds already leaves them to that file', async () => {
  await createProject(server.app, 'org', 'keeper');
  await createProject(server.app, 'org', 'shared');
  const content = 'the same bytes in two projects';
  const kept = await multipart('data.txt', content, 'text/plain');
  expect((await server.app.inject({ method: 'PUT', url: '/v1/files/org/keeper/f', headers: { ...alice, ...kept.headers }, payload: kept.payload })).statusCode).toBe(201);
  const response = await slowUpload('/v1/files/org/shared/f', content, () =>
    server.app.inject({ method: 'DELETE', url: '/v1/projects/org/shared?rev=1', headers: alice }),
  );
  expect(response.json()['@type']).toBe('ProjectIsDeprecated');
  const download = await server.app.inject({ method: 'GET', url: '/v1/files/org/keeper/f', headers: alice });
  expect(download.statusCode).toBe(200);
  expect(download.body).toBe(content);
});

test('discarding a content that another writer stored again since leaves that writer its content', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'blobs-'));
  try {
    const blobs = new BlobStore(root);
    await blobs.init();
    const write = () => blobs.write(Readable.from([Buffer.from('same bytes')]), () => false, () => new Error('truncated'));
    const alone = await write();
    await alone.discard();
    expect(blobs.has(alone.digest)).toBe(false);
    const refused = await write();
    const committed = await write();
    await refused.discard();
    expect(blobs.has(committed.digest)).toBe(true);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
