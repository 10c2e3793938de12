/**
 * A downloaded archive read by readers other than yauzl: Java's ZipInputStream, which goes front
 * to back and never reads the central directory (so stored entries must carry their CRC and
 * sizes up front), and, reading the central directory, Python's zipfile and `unzip -t`. Each
 * checks every entry's CRC-32 itself.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, multipart, startServer } from '../platform/helpers.js';
import { createArchive } from './archive-fixture.js';
import { unzip } from './unzip.js';
import { HAS_JAVA, NO_JAVA, readWithZipInputStream } from './zip-stream-reader.js';

const alice = bearer(TOKENS.alice);
const files = [
  { id: 'random', name: 'random.bin', content: randomBytes(300_000), mediaType: 'application/octet-stream' },
  { id: 'photo', name: 'photo.jpg', content: randomBytes(70_000), mediaType: 'image/jpeg' },
  { id: 'notes', name: 'notes – été.txt', content: Buffer.from('some notes\n'.repeat(5000)), mediaType: 'text/plain' },
  { id: 'empty', name: 'empty.txt', content: Buffer.alloc(0), mediaType: 'text/plain' },
];
/** Entry name, method (0 stored, 8 deflated), size and CRC-32 of every entry, as each reader should find them. */
let expected: { name: string; method: number; bytes: number; crc: number }[];
let server: TestServer;
let zip: Buffer;

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  for (const file of files) {
    const body = await multipart(file.name, file.content, file.mediaType);
    const stored = await server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/${file.id}`, headers: { ...alice, ...body.headers }, payload: body.payload });
    expect(stored.statusCode).toBe(201);
  }
  await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/r', headers: alice, payload: { name: 'resource' } });
  const archive = await createArchive(server.app, 'readers', [
    ...files.map((file) => ({ '@type': 'File', resourceId: file.id })),
    { '@type': 'Resource', resourceId: 'r', path: '/r.json' },
  ]);
  const download = await server.app.inject({ method: 'GET', url: archive, headers: alice });
  expect(download.statusCode).toBe(200);
  zip = download.rawPayload;
  // The rendered resource as yauzl, an independent reader of the central directory, finds it.
  const resource = (await unzip(zip)).entries.get('r.json')!;
  // Random bytes and JPEG are stored; text and JSON are deflated, the empty file stored (nothing to gain).
  expected = [
    ...files.map((file) => ({ name: `org/proj/file/${file.name}`, method: file.mediaType === 'text/plain' && file.content.length > 0 ? 8 : 0, bytes: file.content.length, crc: crc32(file.content) })),
    { name: 'r.json', method: 8, bytes: resource.length, crc: crc32(resource) },
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
});
afterAll(() => server.close());

describe.skipIf(!HAS_JAVA)(`Java's ZipInputStream (${HAS_JAVA ? '/usr/bin/java' : NO_JAVA})`, () => {
  test('reads every entry, stored and deflated, front to back', async () => {
    expect(await readWithZipInputStream(Readable.from([zip]))).toEqual(expected);
  });
});

const PYTHON_LIST = `
import sys, zipfile, zlib
with zipfile.ZipFile(sys.argv[1]) as archive:
    for info in archive.infolist():
        data = archive.read(info)
        print(f"{info.filename}\\t{info.compress_type}\\t{len(data)}\\t{zlib.crc32(data)}")
`;

describe.skipIf(!existsSync('/usr/bin/python3'))(`Python's zipfile (${existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'SKIPPED: no /usr/bin/python3'})`, () => {
  test('reads every entry through the central directory', async () => {
    const file = path.join(server.dataDir, 'python.zip');
    await writeFile(file, zip);
    const listed = execFileSync('/usr/bin/python3', ['-c', PYTHON_LIST, file], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [name, method, bytes, crc] = line.split('\t');
        return { name: name!, method: Number(method), bytes: Number(bytes), crc: Number(crc) };
      });
    expect(listed).toEqual(expected);
  });
});

describe.skipIf(!existsSync('/usr/bin/unzip'))(`Info-ZIP unzip (${existsSync('/usr/bin/unzip') ? '/usr/bin/unzip' : 'SKIPPED: no /usr/bin/unzip'})`, () => {
  test('tests every entry without an error', async () => {
    const file = path.join(server.dataDir, 'unzip.zip');
    await writeFile(file, zip);
    const report = execFileSync('/usr/bin/unzip', ['-t', file], { encoding: 'utf8' });
    expect(report).toContain('No errors detected');
    expect(report.match(/testing: /g)).toHaveLength(expected.length);
  });
});
