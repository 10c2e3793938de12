/**
 * The file contents' directory gone while the server runs (a shared mount dropped) or replaced by another (an
 * empty volume mounted in its place): uploads and reads of contents are 503 with Retry-After, nothing is stored
 * elsewhere, and all is served again once the directory is back. An upload had been answered 500 (ENOENT on its
 * temporary file), a read 404 FileContentNotFound, and an upload into the empty directory 201, its content lost
 * once the real directory was back (the operator round's finding).
 */
import { mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from 'vitest';
import { TOKENS, bearer, multipart, serverWithProject } from './helpers.js';

const server = serverWithProject();
const alice = bearer(TOKENS.alice);
const blobDir = () => path.join(server().dataDir, 'platform', 'files');

async function upload(id: string, content: string) {
  const body = await multipart(`${id}.txt`, content, 'text/plain');
  return server().app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...alice, ...body.headers }, payload: body.payload });
}
const download = (id: string) => server().app.inject({ method: 'GET', url: `/v1/files/org/proj/${id}`, headers: alice });

function expectUnavailable(response: Awaited<ReturnType<typeof download>>): void {
  expect([response.statusCode, response.json()['@type'], response.json().reason, response.headers['retry-after']]).toEqual([
    503,
    'ServiceUnavailable',
    "The server's file storage (--blob-dir) is not available; retry later.",
    '5',
  ]);
}

test('gone, then an empty directory in its place, then back: 503 meanwhile, nothing stored astray, served again after', async () => {
  expect((await upload('before', 'stored before')).statusCode).toBe(201);
  await rename(blobDir(), `${blobDir()}.away`);

  expectUnavailable(await upload('while-gone', 'not stored'));
  expectUnavailable(await download('before'));

  await mkdir(path.join(blobDir(), 'tmp'), { recursive: true });
  expectUnavailable(await upload('into-empty', 'not stored either'));
  expectUnavailable(await download('before'));
  expect(await readdir(path.join(blobDir(), 'tmp'))).toEqual([]);
  expect(await readdir(blobDir())).toEqual(['tmp']);

  await rename(blobDir(), `${blobDir()}.empty`);
  await rename(`${blobDir()}.away`, blobDir());
  expect((await download('before')).body).toBe('stored before');
  for (const id of ['while-gone', 'into-empty']) expect((await download(id)).json()['@type']).toBe('FileNotFound');
  expect((await upload('after', 'stored after')).statusCode).toBe(201);
  expect((await download('after')).body).toBe('stored after');
});

test('a content missing from the directory claimed is still 404 FileContentNotFound', async () => {
  expect((await upload('lost', 'to be lost')).statusCode).toBe(201);
  const contents = path.join(blobDir(), 'sha256');
  await rename(contents, `${contents}.gone`);
  try {
    const response = await download('lost');
    expect([response.statusCode, response.json()['@type']]).toEqual([404, 'FileContentNotFound']);
  } finally {
    await rename(`${contents}.gone`, contents);
  }
});
