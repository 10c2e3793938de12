import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

let server: TestServer;
let origin: string;
const big = randomBytes(6 * 1024 * 1024);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
let archivePath: string;

beforeAll(async () => {
  server = await startServer();
  const alice = bearer(TOKENS.alice);
  await createProject(server.app, 'org', 'proj');
  for (const [id, name, content, type] of [
    ['big', 'big.bin', big, 'application/octet-stream'],
    ['photo', 'photo.jpg', randomBytes(100_000), 'image/jpeg'],
    ['notes', 'notes.txt', Buffer.from('some notes\n'.repeat(1000)), 'text/plain'],
  ] as const) {
    const body = await multipart(name, content, type);
    await server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...alice, ...body.headers }, payload: body.payload });
  }
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r', headers: alice, payload: { name: 'resource' } });
  const created = await server.app.inject({
    method: 'PUT',
    url: '/v1/archives/org/proj/socket',
    headers: { ...alice, accept: 'application/json' },
    payload: {
      resources: [
        { '@type': 'File', resourceId: 'big' },
        { '@type': 'File', resourceId: 'photo' },
        { '@type': 'File', resourceId: 'notes' },
        { '@type': 'Resource', resourceId: 'r', path: '/r.json' },
      ],
    },
  });
  archivePath = new URL(created.json()._self).pathname;
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

function get(url: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => http.get(url, { headers: bearer(TOKENS.alice) }, resolve).on('error', reject));
}

test('a ZIP is streamed over a real socket (chunked) and reads back with an independent reader', async () => {
  const response = await get(`${origin}${archivePath}`);
  expect(response.statusCode).toBe(200);
  expect(response.headers['transfer-encoding']).toBe('chunked');
  expect(response.headers['content-length']).toBeUndefined();
  const file = path.join(server.dataDir, 'downloaded.zip');
  await pipeline(response, createWriteStream(file));
  const zip = await unzip(file);
  expect(zip.names).toEqual(['org/proj/file/big.bin', 'org/proj/file/notes.txt', 'org/proj/file/photo.jpg', 'r.json']);
  expect(sha256(zip.entries.get('org/proj/file/big.bin')!)).toBe(sha256(big));
  expect(zip.entries.get('org/proj/file/notes.txt')!.toString()).toBe('some notes\n'.repeat(1000));
  expect(JSON.parse(zip.entries.get('r.json')!.toString()).name).toBe('resource');
  // Random bytes and JPEG are stored; text and JSON are deflated.
  expect(Object.fromEntries(zip.methods)).toEqual({ 'org/proj/file/big.bin': 0, 'org/proj/file/photo.jpg': 0, 'org/proj/file/notes.txt': 8, 'r.json': 8 });
});

test('a client leaving mid-download does not disturb the server', async () => {
  const response = await get(`${origin}${archivePath}`);
  await new Promise<void>((resolve) => response.once('data', () => resolve()));
  response.destroy();
  const again = await get(`${origin}${archivePath}`);
  expect(again.statusCode).toBe(200);
  const file = path.join(server.dataDir, 'again.zip');
  await pipeline(again, createWriteStream(file));
  expect((await unzip(file)).names).toHaveLength(4);
});
