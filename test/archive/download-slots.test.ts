/**
 * One client may have at most --max-archive-downloads-per-client (2 by default) archive ZIP downloads
 * in progress: one deflated entry can keep most of a core busy for every byte sent, so one more is
 * 429 TooManyRequests with Retry-After, and HEAD says so too. A slot comes back when its download ends,
 * the client gone included; the metadata (JSON) is never counted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { Download } from '../../src/archive/download.js';
import { TOKENS, type TestServer, bearer, createProject, startServer } from '../platform/helpers.js';
import { createArchive } from './archive-fixture.js';

let server: TestServer;
let archiveUrl: string;
const alice = bearer(TOKENS.alice);
/** The ZIP streams of the downloads in progress: each stays open, after a first chunk, until the test ends it. */
const held: PassThrough[] = [];

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'r1' } });
  const archivePath = await createArchive(server.app, 'slots', [{ '@type': 'Resource', resourceId: 'r1' }]);
  // A download as slow as a client reading a large archive: it lasts until the test ends its stream.
  const download = server.archives.download.bind(server.archives);
  vi.spyOn(server.archives, 'download').mockImplementation(async (...args) => {
    const prepared: Download = await download(...args);
    return {
      ...prepared,
      stream: () => {
        const stream = new PassThrough();
        stream.write('PK');
        held.push(stream);
        return stream;
      },
    };
  });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  archiveUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}${archivePath}`;
});
afterAll(() => server.close());

function request(method: string, accept = 'application/zip'): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => http.request(archiveUrl, { method, headers: { ...alice, accept } }, resolve).on('error', reject).end());
}

async function bodyOf(response: http.IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) text += chunk;
  return text;
}

test('a third download of one client is 429 with Retry-After until one of its two ends', async () => {
  const first = await request('GET');
  const second = await request('GET');
  expect([first.statusCode, second.statusCode]).toEqual([200, 200]);

  const refused = await request('GET');
  expect(refused.statusCode).toBe(429);
  expect(refused.headers['retry-after']).toBe('10');
  const error = JSON.parse(await bodyOf(refused));
  expect(error['@type']).toBe('TooManyRequests');
  expect(error.reason).toContain('--max-archive-downloads-per-client');
  const head = await request('HEAD');
  expect(head.statusCode).toBe(429);
  head.resume();
  // The metadata costs no deflating: not counted.
  const metadata = await request('GET', 'application/json');
  expect(metadata.statusCode).toBe(200);
  metadata.resume();
  // Neither refusal took a slot, nor started a download.
  expect(held).toHaveLength(2);

  // The first client leaves mid-download: its slot comes back once the server sees the connection close.
  first.destroy();
  await expect.poll(async () => (await request('HEAD')).statusCode).toBe(200);
  const third = await request('GET');
  expect(third.statusCode).toBe(200);

  // A download sent to its end gives its slot back as well.
  held[1]!.end();
  expect(await bodyOf(second)).toBe('PK');
  const fourth = await request('GET');
  expect(fourth.statusCode).toBe(200);
  for (const stream of held) stream.end();
  await Promise.all([bodyOf(third), bodyOf(fourth)]);
});
