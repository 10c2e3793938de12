/**
 * A whole file download ends its response with its last byte. The content's stream had ended only at a further
 * read finding the end of the file, so a client holding every byte (its Content-Length) could close first: about
 * one download in three (18 of 60, curl, 3 MB) was logged as its client's departure, with no completion line.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { multipart } from '../platform/helpers.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { admin, adminJson, kill, startServerProcess, writeAdminAuthFile } from './server-process.js';

const DOWNLOADS = 40;

/** A download on a connection of its own, read whole; resolves with the bytes received. */
function download(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const get = request(url, { agent: false, headers: { ...admin, accept: '*/*' } }, (response) => {
      let received = 0;
      response.on('data', (chunk: Buffer) => (received += chunk.length));
      response.on('end', () => resolve(received));
      response.on('error', reject);
    });
    get.on('error', reject);
    get.end();
  });
}

describe('a whole file download', () => {
  it('is logged as completed, never as its client leaving, however soon the client closes after the last byte', async () => {
    const { dir, cleanup } = await tempDir('litserve-download-end-');
    const options = { dataDir: path.join(dir, 'data'), indexDir: path.join(dir, 'index'), authFile: await writeAdminAuthFile(dir), extraFlags: ['--log-level', 'info'] };
    await writeIndex(options.indexDir, [article('a1', ['place cells'])]);
    const server = await startServerProcess(options);
    try {
      for (const url of ['/v1/orgs/lab', '/v1/projects/lab/a']) {
        expect((await fetch(`${server.base}${url}`, { method: 'PUT', headers: adminJson, body: '{}' })).status).toBe(201);
      }
      const content = randomBytes(3_000_000);
      const body = await multipart('big.bin', content);
      expect((await fetch(`${server.base}/v1/files/lab/a/big`, { method: 'PUT', headers: { ...admin, ...body.headers }, body: body.payload })).status).toBe(201);
      for (let i = 0; i < DOWNLOADS; i++) expect(await download(`${server.base}/v1/files/lab/a/big`)).toBe(content.length);
      await expect.poll(() => server.output().split('\n').filter((line) => line.includes('"method":"GET","url":"/v1/files/lab/a/big"') && line.includes('request completed')).length).toBe(DOWNLOADS);
      expect(server.output()).not.toContain('client disconnected before the response was sent');
    } finally {
      await kill(server);
      await cleanup();
    }
  }, 90_000);
});
