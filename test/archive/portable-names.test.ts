/**
 * Archive names must extract on Windows and macOS: unsafe names and names that
 * collide once case and Unicode normalisation are ignored are refused at
 * creation; a missing file content is a documented error before the first byte.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from '../platform/helpers.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);

async function upload(id: string, filename: string, content: string) {
  const body = await multipart(filename, content, 'text/plain');
  const response = await server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...alice, ...body.headers }, payload: body.payload });
  if (response.statusCode !== 201) throw new Error(response.body);
  return response.json();
}

function create(id: string, resources: object[]) {
  return server.app.inject({ method: 'PUT', url: `/v1/archives/org/proj/${id}`, headers: { ...alice, accept: 'application/json' }, payload: { resources } });
}

async function archiveExists(id: string): Promise<boolean> {
  const response = await server.app.inject({ method: 'GET', url: `/v1/archives/org/proj/${id}`, headers: { ...alice, accept: 'application/json' } });
  return response.statusCode === 200;
}

function blobPath(digest: string): string {
  return path.join(server.dataDir, 'platform', 'files', 'sha256', digest.slice(0, 2), digest.slice(2, 4), digest);
}

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  for (const id of ['r1', 'R1']) await server.app.inject({ method: 'PUT', url: `/v1/resources/org/proj/_/${id}`, headers: alice, payload: { name: id } });
  await upload('device', 'CON.txt', 'a file named like a Windows device');
  await upload('plain', 'plain.txt', 'plain text');
});
afterAll(() => server.close());

describe('names unsafe on Windows or macOS are refused at creation', () => {
  test.each([
    '/C:/Windows/x',
    '/c:x',
    '/a/CON',
    '/a/aux.txt',
    '/a/lpt1.log',
    '/a/nul',
    '/a/name.',
    '/a/name ',
    '/dir./x',
    '/a/b:c',
    '/a/what?',
    '/a/<x>',
    '/a/"quoted"',
    '/a/pipe|x',
    '/a/star*',
  ])('%s: 400 DecodingFailed, nothing stored', async (unsafe) => {
    const response = await create('unsafe', [{ '@type': 'Resource', resourceId: 'r1', path: unsafe }]);
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
    expect(response.json().reason).toContain('cannot be extracted on every system');
    expect(await archiveExists('unsafe')).toBe(false);
  });

  test('names that are fine everywhere are accepted', async () => {
    const response = await create('portable', [
      { '@type': 'Resource', resourceId: 'r1', path: '/a/console.txt' },
      { '@type': 'Resource', resourceId: 'r1', path: '/a/.hidden', format: 'expanded' },
      { '@type': 'Resource', resourceId: 'r1', path: '/a/con-x/nul_y.json', format: 'n-triples' },
    ]);
    expect(response.statusCode).toBe(201);
  });

  test('a file whose own name is a device name cannot be archived under its default name', async () => {
    const response = await create('device', [{ '@type': 'File', resourceId: 'device' }]);
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toContain("'CON.txt'");
    expect((await create('device-renamed', [{ '@type': 'File', resourceId: 'device', path: '/files/device.txt' }])).statusCode).toBe(201);
  });
});

describe('names that collide once case and Unicode normalisation are ignored', () => {
  test.each([
    ['letter case', ['/docs/Readme.txt', '/docs/README.txt']],
    ['German sharp s', ['/straße.txt', '/STRASSE.txt']],
    ['NFC and NFD', ['/caf\u00e9.txt', '/cafe\u0301.txt']],
    ['a file and a folder differing in case', ['/a/b', '/A/b/c']],
  ])('%s: 400 DecodingFailed', async (_, paths) => {
    const response = await create('look-alike', paths.map((p) => ({ '@type': 'Resource', resourceId: 'r1', path: p })));
    expect(response.statusCode).toBe(400);
    expect(response.json()['@type']).toBe('DecodingFailed');
  });

  test('default names of ids differing only in case collide', async () => {
    const response = await create('ids', [
      { '@type': 'Resource', resourceId: 'r1' },
      { '@type': 'Resource', resourceId: 'R1' },
    ]);
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toContain('differ only in letter case');
  });
});

describe('missing file content', () => {
  test('is 404 FileContentNotFound for the file and for an archive holding it, before the first byte', async () => {
    const lost = await upload('lost', 'lost.txt', 'these bytes will be lost');
    const archive = await create('with-lost', [{ '@type': 'File', resourceId: 'lost' }, { '@type': 'File', resourceId: 'plain' }]);
    expect(archive.statusCode).toBe(201);
    await rm(blobPath(lost._digest._value));

    const file = await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/lost', headers: alice });
    expect(file.statusCode).toBe(404);
    expect(file.json()['@type']).toBe('FileContentNotFound');
    expect(file.headers['content-disposition']).toBeUndefined();

    for (const query of ['', '?ignoreNotFound=true']) {
      const zip = await server.app.inject({ method: 'GET', url: `/v1/archives/org/proj/with-lost${query}`, headers: { ...alice, accept: 'application/zip' } });
      expect(zip.statusCode).toBe(404);
      expect(zip.json()['@type']).toBe('FileContentNotFound');
    }
    // The other file is intact.
    expect((await server.app.inject({ method: 'GET', url: '/v1/files/org/proj/plain', headers: alice })).body).toBe('plain text');
  });
});
