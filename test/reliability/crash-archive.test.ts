/**
 * An archive download interrupted by SIGKILL loses nothing: after restart the
 * archive is still there and downloads whole. And SIGTERM during a download
 * lets it finish (refusing new connections meanwhile) before exiting 0.
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzip } from '../archive/unzip.js';
import { FIXTURE_ARTICLES } from '../http/app-fixture.js';
import { multipart } from '../platform/helpers.js';
import { tempDir, writeIndex } from '../search/helpers.js';
import { admin, adminJson, kill, startServerProcess, writeAdminAuthFile, type ServerProcess } from './server-process.js';

const FILES = 24;
const FILE_BYTES = 512 * 1024;

let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;
let indexDir: string;
let authFile: string;
const contents = new Map<string, Buffer>();

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('litserve-archive-crash-'));
  dataDir = path.join(dir, 'data');
  indexDir = path.join(dir, 'index');
  await writeIndex(indexDir, FIXTURE_ARTICLES);
  authFile = await writeAdminAuthFile(dir);
  const server = await startServerProcess({ dataDir, indexDir, authFile });
  try {
    for (const url of ['/v1/orgs/lab', '/v1/projects/lab/a']) await fetch(`${server.base}${url}`, { method: 'PUT', headers: adminJson, body: '{}' });
    for (let i = 0; i < FILES; i++) {
      // Random bytes: stored, not deflated, so the ZIP is as large as the files and takes time to stream.
      const content = randomBytes(FILE_BYTES);
      contents.set(`/files/f${i}.bin`, content);
      const body = await multipart(`f${i}.bin`, content);
      const response = await fetch(`${server.base}/v1/files/lab/a/f${i}`, { method: 'PUT', headers: { ...admin, ...body.headers }, body: body.payload });
      expect(response.status).toBe(201);
    }
    const definition = { files: Array.from({ length: FILES }, (_, i) => ({ '@type': 'File', resourceId: `f${i}`, path: `/files/f${i}.bin` })) };
    const created = await fetch(`${server.base}/v1/archives/lab/a/big`, {
      method: 'PUT',
      headers: { ...adminJson, accept: 'application/json' },
      body: JSON.stringify({ resources: definition.files }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
  } finally {
    await kill(server);
  }
}, 120_000);

afterAll(async () => {
  await cleanup();
});

/** Starts a ZIP download and reads it `chunkDelayMs` per chunk; returns a reader to finish or abandon it. */
async function startDownload(server: ServerProcess) {
  const response = await fetch(`${server.base}/v1/archives/lab/a/big`, { headers: { ...admin, accept: 'application/zip' } });
  expect(response.status).toBe(200);
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

async function expectWholeArchive(zip: Buffer): Promise<void> {
  const unzipped = await unzip(zip);
  expect(unzipped.names).toEqual([...contents.keys()].map((name) => name.slice(1)).sort());
  for (const [name, content] of contents) expect(unzipped.entries.get(name.slice(1))!.equals(content), name).toBe(true);
}

describe('archive downloads and process death', () => {
  it('SIGKILL mid-download: after restart the archive is there and downloads whole, and nothing is left behind', async () => {
    let server = await startServerProcess({ dataDir, indexDir, authFile });
    try {
      const download = await startDownload(server);
      expect(await download.readAtLeast(256 * 1024)).toBe(false);
      await kill(server);
      await expect(download.readToEnd(0)).rejects.toThrow();
      expect(download.received()).toBeLessThan(FILES * FILE_BYTES);

      server = await startServerProcess({ dataDir, indexDir, authFile });
      const metadata = await fetch(`${server.base}/v1/archives/lab/a/big`, { headers: { ...admin, accept: 'application/json' } });
      expect(metadata.status).toBe(200);
      expect(((await metadata.json()) as { _expiresInSeconds: number })._expiresInSeconds).toBeGreaterThan(0);
      const again = await startDownload(server);
      await expectWholeArchive(await again.readToEnd(0));
      expect(await readdir(path.join(dataDir, 'platform', 'files', 'tmp'))).toEqual([]);
    } finally {
      await kill(server);
    }
  }, 120_000);

  it('SIGTERM mid-download: the download finishes whole, new connections are refused, the process exits 0', async () => {
    const server = await startServerProcess({ dataDir, indexDir, authFile });
    try {
      const download = await startDownload(server);
      expect(await download.readAtLeast(256 * 1024)).toBe(false);
      server.child.kill('SIGTERM');
      const finishing = download.readToEnd(5);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Shutting down: the listener is closed, so a new connection cannot get in.
      await expect(fetch(`${server.base}/healthz`)).rejects.toThrow();
      await expectWholeArchive(await finishing);
      // Exits once the download is done, not after the keep-alive timeout (72 s) of the idle connection.
      const exitCode = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000))]);
      expect(exitCode).toBe(0);
    } finally {
      await kill(server);
    }
  }, 120_000);
});
