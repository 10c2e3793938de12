/**
 * Uploads and downloads at the edges an attacker round found: an overlong multipart boundary, a
 * content-coded upload, a file name that was not UTF-8, and a download whose content cannot be
 * opened. Each is answered in the /v1 vocabulary, and nothing is stored for a refused upload.
 */
import type { ReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { expect, test, vi } from 'vitest';
import { BlobStore } from '../../src/platform/blobs.js';
import { TOKENS, bearer, multipart, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);

/** A one-part upload body written by hand, with the boundary and file name bytes given. */
function handMadeUpload(boundary: string, filenameBytes: Buffer = Buffer.from('data.txt')): { payload: Buffer; headers: Record<string, string> } {
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="`),
    filenameBytes,
    Buffer.from(`"\r\nContent-Type: text/plain\r\n\r\nsome content\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function storedContents(): Promise<string[]> {
  const root = path.join(server().dataDir, 'platform', 'files', 'sha256');
  return (await readdir(root, { recursive: true }).catch(() => [] as string[])).filter((entry) => /[0-9a-f]{64}$/.test(entry));
}

function put(id: string, body: { payload: Buffer; headers: Record<string, string> }, headers: Record<string, string> = {}) {
  return server().app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...alice, ...body.headers, ...headers }, payload: body.payload });
}

test('a multipart boundary over RFC 2046’s 70 characters is 400 InvalidFile, not a 500 from the parser', async () => {
  const before = await storedContents();
  expect((await put('boundary-70', handMadeUpload('b'.repeat(70)))).statusCode).toBe(201);
  for (const length of [71, 253, 1000]) {
    const response = await put(`boundary-${length}`, handMadeUpload('b'.repeat(length)));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ '@type': 'InvalidFile', reason: expect.stringContaining(`${length} characters`) });
  }
  expect((await storedContents()).length).toBe(before.length + 1);
});

test('an upload with a content coding is 415, as on the JSON routes, not stored as its compressed bytes', async () => {
  const body = await multipart('data.txt', 'hello');
  const response = await put('coded', { ...body, payload: gzipSync(body.payload) }, { 'content-encoding': 'gzip' });
  expect(response.statusCode).toBe(415);
  expect(response.json()['@type']).toBe('UnsupportedMediaType');
  expect((await server().app.inject({ method: 'GET', url: '/v1/files/org/proj/coded', headers: alice })).statusCode).toBe(404);
  expect((await put('identity', body, { 'content-encoding': 'identity' })).statusCode).toBe(201);
});

test('a file name whose bytes are not UTF-8 is refused, not stored with U+FFFD in it', async () => {
  const response = await put('bad-name', handMadeUpload('xyz', Buffer.from([0xc0, 0xae, 0xc0, 0xae, 0x2e, 0x74, 0x78, 0x74])));
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({ '@type': 'InvalidFile', reason: expect.stringContaining('not valid UTF-8') });
  const accented = await put('good-name', handMadeUpload('xyz', Buffer.from('données.txt')));
  expect(accented.statusCode).toBe(201);
  expect(accented.json()._filename).toBe('données.txt');
});

test('a download whose content cannot be opened answers in the /v1 vocabulary, without the file’s headers', async () => {
  const created = await put('unreadable', await multipart('data.txt', 'will not open', 'text/plain'));
  expect(created.statusCode).toBe(201);
  // The content is there, of its size, and opening it fails (root reads every file: the failure is made here).
  const open = vi.spyOn(BlobStore.prototype, 'open').mockImplementation(
    () => new Readable({ read() { this.destroy(Object.assign(new Error('EACCES: permission denied, open'), { code: 'EACCES' })); } }) as ReadStream,
  );
  let response;
  try {
    response = await server().app.inject({ method: 'GET', url: '/v1/files/org/proj/unreadable', headers: { ...alice, accept: '*/*', range: 'bytes=0-3' } });
  } finally {
    open.mockRestore();
  }
  expect(response.statusCode).toBe(500);
  expect(response.json()).toMatchObject({ '@type': 'UnexpectedError' });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  for (const name of ['content-range', 'content-disposition', 'etag', 'accept-ranges']) expect(response.headers[name], name).toBeUndefined();
});
