/** A data directory holding one large archive (random files and JSON resources), and a slow ZIP reader, for the kill and shutdown tests. */
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { unzip } from '../archive/unzip.js';
import { FIXTURE_ARTICLES } from '../http/app-fixture.js';
import { multipart } from '../platform/helpers.js';
import { tempDir, writeIndex } from '../search/helpers.js';
import { admin, adminJson, kill, startServerProcess, writeAdminAuthFile, type ServerProcess, type ServerProcessOptions } from './server-process.js';

export const ARCHIVE_FILES = 16;
export const ARCHIVE_FILE_BYTES = 512 * 1024;
export const ARCHIVE_RESOURCES = 40;

export interface ArchiveFixture extends ServerProcessOptions {
  cleanup(): Promise<void>;
  /** The archive's definition, to create more archives of the same entries. */
  definition: { resources: object[] };
  /** Expected ZIP entries by name: file bytes, or resource sources as JSON. */
  contents: Map<string, Buffer>;
}

/** Uploads the files and resources with a server that is then killed, and returns where they are. */
export async function archiveFixture(prefix: string): Promise<ArchiveFixture> {
  const { dir, cleanup } = await tempDir(prefix);
  const options = { dataDir: path.join(dir, 'data'), indexDir: path.join(dir, 'index'), authFile: await writeAdminAuthFile(dir) };
  await writeIndex(options.indexDir, FIXTURE_ARTICLES);
  const contents = new Map<string, Buffer>();
  const entries: object[] = [];
  const server = await startServerProcess(options);
  try {
    for (const url of ['/v1/orgs/lab', '/v1/projects/lab/a']) {
      expect((await fetch(`${server.base}${url}`, { method: 'PUT', headers: adminJson, body: '{}' })).status).toBe(201);
    }
    for (let i = 0; i < ARCHIVE_FILES; i++) {
      // Random bytes: stored, not deflated, so the ZIP is as large as the files and takes time to stream.
      const content = randomBytes(ARCHIVE_FILE_BYTES);
      contents.set(`files/f${i}.bin`, content);
      entries.push({ '@type': 'File', resourceId: `f${i}`, path: `/files/f${i}.bin` });
      const body = await multipart(`f${i}.bin`, content);
      const response = await fetch(`${server.base}/v1/files/lab/a/f${i}`, { method: 'PUT', headers: { ...admin, ...body.headers }, body: body.payload });
      expect(response.status).toBe(201);
    }
    for (let i = 0; i < ARCHIVE_RESOURCES; i++) {
      const source = { '@type': 'Thing', name: `r${i}`, notes: randomBytes(1024).toString('hex') };
      contents.set(`resources/r${i}.json`, Buffer.from(JSON.stringify(source)));
      entries.push({ '@type': 'Resource', resourceId: `r${i}`, path: `/resources/r${i}.json`, format: 'source' });
      const response = await fetch(`${server.base}/v1/resources/lab/a/_/r${i}`, { method: 'PUT', headers: adminJson, body: JSON.stringify(source) });
      expect(response.status).toBe(201);
    }
  } finally {
    await kill(server);
  }
  return { ...options, cleanup, definition: { resources: entries }, contents };
}

/** Creates an archive as a ZIP client does: 303 to its address, which is returned. */
export async function createArchive(server: ServerProcess, fixture: ArchiveFixture): Promise<string> {
  const response = await fetch(`${server.base}/v1/archives/lab/a`, {
    method: 'POST',
    headers: { ...adminJson, accept: 'application/zip' },
    body: JSON.stringify(fixture.definition),
    redirect: 'manual',
  });
  expect(response.status, await response.clone().text()).toBe(303);
  const location = response.headers.get('location')!;
  expect(location.startsWith(`${server.base}/v1/archives/lab/a/`)).toBe(true);
  return location;
}

/** Starts a ZIP download; returns a reader to read part of it, finish it slowly, or abandon it. */
export async function startDownload(url: string) {
  const response = await fetch(url, { headers: { ...admin, accept: 'application/zip' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/zip');
  const reader = response.body!.getReader();
  const chunks: Buffer[] = [];
  let received = 0;
  const readAtLeast = async (bytes: number) => {
    while (received < bytes) {
      const { done, value } = await reader.read();
      if (done) return true;
      chunks.push(Buffer.from(value));
      received += value.length;
    }
    return false;
  };
  const readToEnd = async (chunkDelayMs: number) => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks);
      chunks.push(Buffer.from(value));
      received += value.length;
      if (chunkDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, chunkDelayMs));
    }
  };
  return { readAtLeast, readToEnd, received: () => received };
}

/** The ZIP (read with yauzl) holds exactly the fixture's entries, byte for byte. */
export async function expectWholeArchive(zip: Buffer, fixture: ArchiveFixture): Promise<void> {
  const unzipped = await unzip(zip);
  expect([...unzipped.names].sort()).toEqual([...fixture.contents.keys()].sort());
  for (const [name, content] of fixture.contents) {
    const entry = unzipped.entries.get(name)!;
    if (name.endsWith('.json')) expect(JSON.parse(entry.toString('utf8')), name).toEqual(JSON.parse(content.toString('utf8')));
    else expect(entry.equals(content), name).toBe(true);
  }
}

export const ARCHIVE_MIN_BYTES = ARCHIVE_FILES * ARCHIVE_FILE_BYTES;

/** Every file under `dir` with its size: what a download must not change. */
export async function listTree(dir: string): Promise<Map<string, number>> {
  const tree = new Map<string, number>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    tree.set(path.relative(dir, full) + (entry.isDirectory() ? '/' : ''), entry.isDirectory() ? 0 : (await stat(full)).size);
  }
  return tree;
}
