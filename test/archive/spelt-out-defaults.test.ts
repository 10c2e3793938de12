/**
 * An entry written twice, the same in every field, is one entry; a default spelt out counts as the same,
 * the path included: an entry's default name written as an explicit path is that entry again, not a
 * second entry landing on the same name. A file's default name follows its current name, so its entries
 * are taken as one when the file can be looked up at creation.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { flatEncode } from '../../src/archive/paths.js';
import { BASE, TOKENS, type TestServer, bearer, createProject, multipart, startServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);
const r1 = `${BASE}/v1/resources/org/proj/_/r1`;

async function upload(id: string, filename: string, rev?: number) {
  const body = await multipart(filename, `content of ${filename}`, 'text/plain');
  const url = `/v1/files/org/proj/${id}${rev ? `?rev=${rev}` : ''}`;
  const response = await server.app.inject({ method: 'PUT', url, headers: { ...alice, ...body.headers }, payload: body.payload });
  if (response.statusCode >= 300) throw new Error(response.body);
}

function create(id: string, resources: object[]) {
  return server.app.inject({ method: 'PUT', url: `/v1/archives/org/proj/${id}`, headers: { ...alice, accept: 'application/json' }, payload: { resources } });
}

async function entryNames(id: string): Promise<string[]> {
  const response = await server.app.inject({ method: 'GET', url: `/v1/archives/org/proj/${id}`, headers: { ...alice, accept: 'application/zip' } });
  expect(response.statusCode).toBe(200);
  return (await unzip(response.rawPayload)).names;
}

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'one' } });
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1?rev=1', headers: alice, payload: { name: 'two' } });
  await upload('f1', 'hello.txt');
});
afterAll(() => server.close());

describe("a resource's default path written out is the same entry", () => {
  test.each([
    ['the defaults', {}, `org/proj/compacted/${flatEncode(r1)}.json`],
    ['a revision', { rev: 1 }, `org/proj/compacted/${flatEncode(`${r1}?rev=1`)}.json`],
    ['a format', { format: 'n-triples' }, `org/proj/n-triples/${flatEncode(r1)}.nt`],
    ['the original source', { originalSource: true }, `org/proj/source/${flatEncode(r1)}.json`],
  ])('with %s: one entry, under the default name', async (_, fields, name) => {
    const id = `spelt-${Object.keys(fields).join('-') || 'defaults'}`;
    const response = await create(id, [
      { '@type': 'Resource', resourceId: 'r1', ...fields },
      { '@type': 'Resource', resourceId: r1, project: 'org/proj', ...fields, path: `/${name}` },
    ]);
    expect(response.statusCode).toBe(201);
    expect(await entryNames(id)).toEqual([name]);
  });

  test('another path for the same resource is another entry', async () => {
    const response = await create('two-names', [
      { '@type': 'Resource', resourceId: 'r1' },
      { '@type': 'Resource', resourceId: 'r1', path: '/copy/r1.json' },
    ]);
    expect(response.statusCode).toBe(201);
    expect(await entryNames('two-names')).toEqual(['copy/r1.json', `org/proj/compacted/${flatEncode(r1)}.json`]);
  });

  test("another entry's default name written as a path still conflicts with it", async () => {
    const response = await create('conflict', [
      { '@type': 'Resource', resourceId: 'r1' },
      { '@type': 'Resource', resourceId: 'r1', rev: 1, path: `/org/proj/compacted/${flatEncode(r1)}.json` },
    ]);
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toContain('resources[0], resources[1]: The paths');
  });
});

describe("a file's default path written out is the same entry when the file can be looked up", () => {
  test.each([
    ['File', { '@type': 'File', resourceId: 'f1' }],
    ['FileSelf', { '@type': 'FileSelf', value: `${BASE}/v1/files/org/proj/f1` }],
  ])('%s: one entry, which keeps the path written when the file is renamed', async (type, entry) => {
    const id = `file-${type}`;
    const response = await create(id, [entry, { ...entry, path: '/org/proj/file/hello.txt' }]);
    expect(response.statusCode).toBe(201);
    expect(await entryNames(id)).toEqual(['org/proj/file/hello.txt']);
  });

  test('renamed since: the entry keeps the name written', async () => {
    await upload('f2', 'before.txt');
    const entry = { '@type': 'File', resourceId: 'f2' };
    expect((await create('renamed', [entry, { ...entry, path: '/org/proj/file/before.txt' }])).statusCode).toBe(201);
    await upload('f2', 'after.txt', 1);
    expect(await entryNames('renamed')).toEqual(['org/proj/file/before.txt']);
  });

  test('a file missing at creation: two entries, whose names are checked at download', async () => {
    const entry = { '@type': 'File', resourceId: 'f3' };
    expect((await create('missing', [entry, { ...entry, path: '/org/proj/file/later.txt' }])).statusCode).toBe(201);
    await upload('f3', 'later.txt');
    const response = await server.app.inject({ method: 'GET', url: '/v1/archives/org/proj/missing', headers: { ...alice, accept: 'application/zip' } });
    expect(response.statusCode).toBe(409);
    expect(response.json()['@type']).toBe('ArchivePathConflict');
  });
});
