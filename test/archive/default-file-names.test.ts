/**
 * A file's default name in an archive (`{org}/{project}/file/{_filename}`) keeps the bound an explicit path
 * has: a file name of at most 99 characters. `_filename` may hold 255, so a longer one needs a `path`:
 * refused at creation when the file can be looked up, at download (409 ArchivePathConflict) otherwise.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from '../platform/helpers.js';
import { unzip } from './unzip.js';

let server: TestServer;
const alice = bearer(TOKENS.alice);
const name = (length: number) => `${'n'.repeat(length - 4)}.txt`;

async function upload(id: string, filename: string) {
  const body = await multipart(filename, 'content', 'text/plain');
  const response = await server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...alice, ...body.headers }, payload: body.payload });
  if (response.statusCode !== 201) throw new Error(response.body);
}

function create(id: string, resources: object[]) {
  return server.app.inject({ method: 'PUT', url: `/v1/archives/org/proj/${id}`, headers: { ...alice, accept: 'application/json' }, payload: { resources } });
}

function download(id: string, query = '') {
  return server.app.inject({ method: 'GET', url: `/v1/archives/org/proj/${id}${query}`, headers: { ...alice, accept: 'application/zip' } });
}

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  await upload('longname', name(200));
  await upload('longest', name(99));
  await upload('one-over', name(100));
});
afterAll(() => server.close());

describe('at creation, for files that can be looked up', () => {
  test.each([
    ['File', 200, { '@type': 'File', resourceId: 'longname' }],
    ['File', 100, { '@type': 'File', resourceId: 'one-over' }],
    ['FileSelf', 200, { '@type': 'FileSelf', value: 'http://platform.test/v1/files/org/proj/longname' }],
  ])('a %s named with %i characters, without a path: 400 DecodingFailed, nothing stored', async (_, length, entry) => {
    const response = await create('refused', [{ '@type': 'Resource', resourceId: 'missing', path: '/other.json' }, entry]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      '@type': 'DecodingFailed',
      reason:
        `resources[1]: The paths 'org/proj/file/${name(length)}' must have a file path prefix at most 154 characters long ` +
        `and a file path name at most 99 characters long: its file name has ${name(length).length} characters. Please define a path for it.`,
    });
    expect((await download('refused')).statusCode).toBe(404);
  });

  test('99 characters is the longest default name, and a path takes the place of a longer one', async () => {
    const created = await create('fits', [
      { '@type': 'File', resourceId: 'longest' },
      { '@type': 'File', resourceId: 'longname', path: '/short.txt' },
    ]);
    expect(created.statusCode).toBe(201);
    const zip = await download('fits');
    expect(zip.statusCode).toBe(200);
    expect((await unzip(zip.rawPayload)).names.sort()).toEqual([`org/proj/file/${name(99)}`, 'short.txt']);
  });
});

describe('at download, for files that could not be looked up at creation', () => {
  test('a file uploaded after the creation with a long name: 409 ArchivePathConflict, ignoreNotFound or not', async () => {
    expect((await create('later', [{ '@type': 'File', resourceId: 'uploaded-later' }])).statusCode).toBe(201);
    await upload('uploaded-later', name(150));
    for (const query of ['', '?ignoreNotFound=true']) {
      const response = await download('later', query);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ '@type': 'ArchivePathConflict', reason: expect.stringContaining(`'org/proj/file/${name(150)}'`) });
    }
  });
});

describe('explicit paths', () => {
  test('at most 99 characters of file name and 154 of parent, as the message says', async () => {
    const parent = `/${'p'.repeat(153)}`;
    expect((await create('explicit-longest', [{ '@type': 'Resource', resourceId: 'r', path: `${parent}/${name(99)}` }])).statusCode).toBe(201);
    const response = await create('explicit-over', [{ '@type': 'Resource', resourceId: 'r', path: `${parent}/${name(100)}` }]);
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toBe(
      `resources[0]: The paths '${parent}/${name(100)}' must have a file path prefix at most 154 characters long and a file path name at most 99 characters long: its file name has 100 characters.`,
    );
  });
});
