/**
 * A file's content damaged on disk is never served as if intact: bytes changed in place (same size) cut a
 * whole download and an archive holding them before their end, logged with the content's path; anything but
 * a regular file in the content's place (a symbolic link leading outside the data directory, a directory) is
 * 404 FileContentNotFound saying so, logged with the path too. A download had answered 200 with the damaged
 * bytes, or with those of the file a link led to.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { unzip } from '../archive/unzip.js';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from './helpers.js';

const alice = bearer(TOKENS.alice);
/**
 * Contents of several 64 KiB reads, so that a cut download is seen mid-content, not only before its first byte;
 * each its own (contents are stored by digest, and each test damages its own).
 */
const SIZE = 200 * 1024;
const binary = () => randomBytes(SIZE);
const text = () => Buffer.from(`${randomBytes(8).toString('hex')}\n${'a line of text that deflates well\n'.repeat(6000)}`);

let server: TestServer;
let outside: string;
const logged: { level: 'warn' | 'error'; message: string }[] = [];

beforeAll(async () => {
  server = await startServer({
    logger: {
      info: () => {},
      warn: (message) => logged.push({ level: 'warn', message }),
      error: (_details, message) => logged.push({ level: 'error', message }),
    },
  });
  await createProject(server.app, 'org', 'proj');
  // Over a socket: a response cut short is seen as the client sees it, its bytes up to the cut included.
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  outside = await mkdtemp(path.join(tmpdir(), 'outside-data-'));
});
afterAll(async () => {
  await server?.close();
  await rm(outside, { recursive: true, force: true });
});
beforeEach(() => {
  logged.length = 0;
});

/** Uploads the content under `id`; returns the path of its stored bytes. */
async function stored(id: string, content: Buffer, mediaType: string): Promise<string> {
  const body = await multipart(`${id}.bin`, content, mediaType);
  const response = await server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...alice, ...body.headers }, payload: body.payload });
  expect(response.statusCode).toBe(201);
  const digest = response.json()._digest._value as string;
  return path.join(server.dataDir, 'platform', 'files', 'sha256', digest.slice(0, 2), digest.slice(2, 4), digest);
}

/** Changes four bytes at `offset`, the file's size unchanged. */
async function changeInPlace(file: string, offset: number): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.write(Buffer.from('XXXX'), 0, 4, offset);
  } finally {
    await handle.close();
  }
}

/** What a client receives over HTTP: the status, the announced length, the bytes that came, and whether the transfer broke. */
function received(url: string, headers: Record<string, string> = {}): Promise<{ status: number; announced: number; body: Buffer; broke: boolean }> {
  const { port } = server.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: url, headers: { ...alice, accept: '*/*', ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      const settle = (broke: boolean) =>
        resolve({ status: response.statusCode!, announced: Number(response.headers['content-length']), body: Buffer.concat(chunks), broke });
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => settle(false));
      response.once('error', () => settle(true));
    }).once('error', reject);
  });
}

function inject(url: string, headers: Record<string, string> = {}) {
  return server.app.inject({ method: 'GET', url, headers: { ...alice, accept: '*/*', ...headers } });
}

/** An archive of the files, in this order (their names sort so); returns its URL. */
async function archiveOf(id: string, fileIds: string[]): Promise<string> {
  const created = await server.app.inject({
    method: 'PUT',
    url: `/v1/archives/org/proj/${id}`,
    headers: { ...alice, accept: 'application/json' },
    payload: { resources: fileIds.map((resourceId) => ({ '@type': 'File', resourceId })) },
  });
  expect(created.statusCode).toBe(201);
  return `/v1/archives/org/proj/${id}`;
}

const warningsNaming = (file: string) => logged.filter((line) => line.level === 'warn' && line.message.includes(file));
const errorsNaming = (file: string) => logged.filter((line) => line.level === 'error' && line.message.includes(file));

describe('bytes changed in place, the size kept', () => {
  test('a whole download is cut before its end, short of its Content-Length, and logged naming the content', async () => {
    const file = await stored('changed', binary(), 'application/octet-stream');
    await changeInPlace(file, 100 * 1024);
    const { status, announced, body, broke } = await received('/v1/files/org/proj/changed');
    // The headers go before the bytes are checked: the client sees a transfer that broke, short of its length.
    expect({ status, announced, broke }).toEqual({ status: 200, announced: SIZE, broke: true });
    expect(body.length).toBeLessThan(SIZE);
    expect(errorsNaming(file)).toEqual([{ level: 'error', message: expect.stringMatching(/restore it from a backup/i) }]);
  });

  test('once a whole download found it changed, it is refused at once, a resumed download\'s range included, until its bytes are uploaded again', async () => {
    const original = binary();
    const file = await stored('changed-resumed', original, 'application/octet-stream');
    await changeInPlace(file, 100);
    const cut = await received('/v1/files/org/proj/changed-resumed');
    expect(cut.broke).toBe(true);
    // `curl -C -` asks for the rest: it had been 206 with the changed bytes unchecked, and the file completed (exit 0).
    const resumed = await received('/v1/files/org/proj/changed-resumed', { range: `bytes=${cut.body.length}-` });
    expect(resumed.status).toBe(404);
    expect(JSON.parse(resumed.body.toString())).toMatchObject({ '@type': 'FileContentNotFound', reason: expect.stringMatching(/its bytes no longer match its SHA-256\.$/) });
    // The same bytes uploaded again (here under another id) are written over the changed ones.
    await stored('changed-resumed-again', original, 'application/octet-stream');
    const whole = await received('/v1/files/org/proj/changed-resumed');
    expect({ status: whole.status, broke: whole.broke, intact: whole.body.equals(original) }).toEqual({ status: 200, broke: false, intact: true });
  });

  test('a range is served unchecked (checking it would read the whole file)', async () => {
    const file = await stored('changed-range', binary(), 'application/octet-stream');
    await changeInPlace(file, 100);
    const { status, body } = await received('/v1/files/org/proj/changed-range', { range: 'bytes=0-199' });
    expect(status).toBe(206);
    expect(body.subarray(100, 104).toString()).toBe('XXXX');
  });

  test.each([
    ['stored', binary, 'application/octet-stream', 0],
    ['deflated', text, 'text/plain', 8],
  ])('an archive holding it (%s) is cut before that entry ends, and logged naming the content', async (_, contentOf, mediaType, method) => {
    const content = contentOf();
    // A file before it, so that the ZIP has begun (200) when the damaged entry is reached.
    await stored(`a-intact-${method}`, binary(), 'application/octet-stream');
    const intact = await stored(`zipped-${method}`, content, mediaType);
    const archive = await archiveOf(`with-changed-${method}`, [`a-intact-${method}`, `zipped-${method}`]);
    const whole = await received(archive, { accept: 'application/zip' });
    expect([...(await unzip(whole.body)).methods.values()]).toEqual([0, method]);

    await changeInPlace(intact, content.length - 50);
    logged.length = 0;
    const { status, broke, body } = await received(archive, { accept: 'application/zip' });
    expect({ status, broke }).toEqual({ status: 200, broke: true });
    await expect(unzip(body)).rejects.toThrow();
    // The damaged bytes never reach the client: the last chunk is held back until the digest is checked.
    expect(body.includes(Buffer.from('XXXX'))).toBe(false);
    expect(errorsNaming(intact)).toEqual([{ level: 'error', message: expect.stringMatching(/restore it from a backup/i) }]);
  });

  test('an archive whose first entry it is, nothing sent yet, is 404 FileContentNotFound saying so, not a 500', async () => {
    const content = binary();
    const file = await stored('first-changed', content, 'application/octet-stream');
    const archive = await archiveOf('first-changed-archive', ['first-changed']);
    await changeInPlace(file, 100);
    const refused = await server.app.inject({ url: archive, headers: { ...alice, accept: 'application/zip' } });
    expect(refused.statusCode, refused.body).toBe(404);
    expect(refused.json()).toMatchObject({ '@type': 'FileContentNotFound', reason: expect.stringMatching(/is damaged in the server's storage: its bytes no longer match its SHA-256\.$/) });
  });
});

describe('something other than a regular file in the content\'s place', () => {
  test('a symbolic link to a file outside the data directory is 404 FileContentNotFound; no byte of that file is sent', async () => {
    const file = await stored('linked', binary(), 'application/octet-stream');
    const secret = Buffer.alloc(SIZE, 's');
    const target = path.join(outside, 'secret.bin');
    await writeFile(target, secret);
    await rm(file);
    await symlink(target, file);
    for (const range of [undefined, 'bytes=0-99']) {
      const response = await inject('/v1/files/org/proj/linked', range === undefined ? {} : { range });
      expect(response.statusCode).toBe(404);
      expect(response.rawPayload.includes(secret.subarray(0, 64))).toBe(false);
      expect(response.json()).toMatchObject({ '@type': 'FileContentNotFound', reason: expect.stringContaining('not a regular file') });
    }
    expect(warningsNaming(file)).toHaveLength(2);
    const zip = await inject(await archiveOf('with-linked', ['linked']), { accept: 'application/zip' });
    expect(zip.statusCode).toBe(404);
    expect(zip.json()['@type']).toBe('FileContentNotFound');
  });

  test('a symbolic link in place of one of its folders (sha256/ab/cd) is 404 too: the file it leads to is never read', async () => {
    const file = await stored('linked-folder', binary(), 'application/octet-stream');
    const folder = path.dirname(file);
    const elsewhere = path.join(outside, 'folder');
    const secret = Buffer.alloc(SIZE, 'f');
    await mkdir(elsewhere, { recursive: true });
    await writeFile(path.join(elsewhere, path.basename(file)), secret);
    await rename(folder, `${folder}.moved`);
    await symlink(elsewhere, folder);
    try {
      // A range had served the outside file's bytes (only the last part of the path was guarded).
      for (const range of [undefined, 'bytes=0-99']) {
        const response = await inject('/v1/files/org/proj/linked-folder', range === undefined ? {} : { range });
        expect(response.statusCode).toBe(404);
        expect(response.rawPayload.includes(secret.subarray(0, 64))).toBe(false);
        expect(response.json()).toMatchObject({ '@type': 'FileContentNotFound', reason: expect.stringContaining('not a regular file') });
      }
    } finally {
      await rm(folder);
      await rename(`${folder}.moved`, folder);
    }
  });

  test('a directory is 404 FileContentNotFound saying it is not a regular file, not quoting its size', async () => {
    const file = await stored('directory', binary(), 'application/octet-stream');
    await rm(file);
    await mkdir(file);
    const response = await inject('/v1/files/org/proj/directory');
    expect(response.statusCode).toBe(404);
    expect(response.json()['@type']).toBe('FileContentNotFound');
    expect(response.json().reason).toContain('not a regular file');
    expect(response.json().reason).not.toMatch(/\d+ bytes where/);
    expect(warningsNaming(file)).toHaveLength(1);
  });

  test('a missing content is logged once, naming its path', async () => {
    const file = await stored('missing', binary(), 'application/octet-stream');
    await rm(file);
    expect((await inject('/v1/files/org/proj/missing')).statusCode).toBe(404);
    expect(warningsNaming(file)).toHaveLength(1);
  });
});
