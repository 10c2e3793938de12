/**
 * Linux and macOS file systems (ext4, XFS, Btrfs, APFS) take at most 255 bytes of UTF-8 for one
 * file or folder name. The ustar-derived limits count characters (99 for the name, 154 for the
 * parent), so a name of 95 emoji, or a folder of 130 accented letters, was accepted and made an
 * archive that `unzip` and Python's zipfile could not extract ("File name too long").
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from '../platform/helpers.js';

let server: TestServer;
let scratch: string;
const alice = bearer(TOKENS.alice);

beforeAll(async () => {
  server = await startServer();
  scratch = await mkdtemp(path.join(tmpdir(), 'segment-bytes-'));
  await createProject(server.app, 'org', 'proj');
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r1', headers: alice, payload: { name: 'r1' } });
  // 70 emoji and '.txt': 74 characters, within the 99 of a name, but 284 bytes.
  const body = await multipart(`${'😀'.repeat(70)}.txt`, 'emoji', 'text/plain');
  const uploaded = await server.app.inject({ method: 'PUT', url: '/v1/files/org/proj/emoji', headers: { ...alice, ...body.headers }, payload: body.payload });
  expect(uploaded.statusCode).toBe(201);
});
afterAll(async () => {
  await server.close();
  await rm(scratch, { recursive: true, force: true });
});

const create = (resources: object[]) =>
  server.app.inject({ method: 'POST', url: '/v1/archives/org/proj', headers: { ...alice, accept: 'application/json' }, payload: { resources } });

describe('names longer than 255 bytes of UTF-8 are refused at creation', () => {
  test.each([
    ['a file name of 95 emoji (384 bytes)', `/${'😀'.repeat(95)}.txt`, '😀'.repeat(95) + '.txt', 384],
    ['a folder of 130 accented letters (260 bytes)', `/d/${'é'.repeat(130)}/x.json`, 'é'.repeat(130), 260],
    ['a name of 63 emoji and .txt (256 bytes)', `/${'😀'.repeat(63)}.txt`, '😀'.repeat(63) + '.txt', 256],
  ])('%s', async (_, entryPath, segment, bytes) => {
    const response = await create([{ '@type': 'Resource', resourceId: 'r1', path: entryPath }]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      '@type': 'DecodingFailed',
      reason: `resources[0]: The path '${entryPath}' cannot be extracted on every system: '${segment}' takes ${bytes} bytes in UTF-8, more than the 255 a file or folder name may take.`,
    });
  });

  test("a file's default name too", async () => {
    const response = await create([{ '@type': 'File', resourceId: 'emoji' }]);
    expect(response.statusCode).toBe(400);
    expect(response.json().reason).toContain(`takes 284 bytes in UTF-8, more than the 255`);
  });
});

test('255 bytes is the longest name, and an archive of such names extracts', async () => {
  const name = `${'😀'.repeat(62)}.txt`; // 252 bytes
  const folder = `${'é'.repeat(127)}z`; // 255 bytes
  const created = await create([{ '@type': 'Resource', resourceId: 'r1', format: 'source', path: `/${folder}/${name}` }]);
  expect(created.statusCode).toBe(201);
  const zip = await server.app.inject({ method: 'GET', url: new URL(created.json()._self).pathname, headers: alice });
  expect(zip.statusCode).toBe(200);
  const zipFile = path.join(scratch, 'archive.zip');
  await writeFile(zipFile, zip.rawPayload);
  const target = path.join(scratch, 'out');
  execFileSync('python3', ['-c', 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])', zipFile, target]);
  expect(JSON.parse(await readFile(path.join(target, folder, name), 'utf8'))).toEqual({ name: 'r1' });
});
