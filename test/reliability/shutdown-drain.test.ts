/**
 * SIGTERM drains: a ZIP download read slowly and a file upload sent slowly,
 * both in flight when the signal arrives, complete successfully (the whole
 * valid ZIP; the upload acknowledged and still there after a restart); new
 * connections are refused as soon as shutdown begins; the process exits 0
 * soon after the last request, without waiting for idle keep-alive
 * connections to time out.
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart } from '../platform/helpers.js';
import { type ArchiveFixture, archiveFixture, createArchive, expectWholeArchive, startDownload } from './archive-fixture.js';
import { admin, kill, startServerProcess, type ServerProcess } from './server-process.js';

let fixture: ArchiveFixture;

beforeAll(async () => {
  fixture = await archiveFixture('litserve-shutdown-');
}, 120_000);

afterAll(async () => {
  await fixture?.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the error code of a fresh TCP connection to the server, or 'connected' if it was accepted. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
  });
}

/** The exit code, or a message if the process is still running after `ms`. */
function exitWithin(server: ServerProcess, ms: number): Promise<number | null | string> {
  return Promise.race([server.exited, sleep(ms).then(() => `still running after ${ms} ms`)]);
}

describe('SIGTERM drains in-flight requests', () => {
  it('a ZIP download read slowly finishes whole, new connections are refused, the process exits 0', async () => {
    const server = await startServerProcess(fixture);
    try {
      const location = await createArchive(server, fixture);
      const download = await startDownload(location);
      expect(await download.readAtLeast(256 * 1024)).toBe(false);
      server.child.kill('SIGTERM');
      const finishing = download.readToEnd(5);
      await sleep(300);
      expect(await tryConnect(server.port), 'a new connection during shutdown').toBe('ECONNREFUSED');
      expect(server.child.exitCode, 'exited before the download finished').toBeNull();
      await expectWholeArchive(await finishing, fixture);
      // Exits once the download is done, not after the keep-alive timeout (72 s) of the now idle connection.
      expect(await exitWithin(server, 20_000)).toBe(0);
    } finally {
      await kill(server);
    }
  }, 60_000);

  it('a file upload sent slowly is acknowledged and kept, new connections are refused, the process exits 0', async () => {
    let server = await startServerProcess(fixture);
    try {
      const content = Buffer.alloc(3 * 1024 * 1024, 'sent slowly through a shutdown;');
      const body = await multipart('slow.bin', content);
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const upload = request(
          `${server.base}/v1/files/lab/a/slow`,
          { method: 'PUT', agent: false, headers: { ...admin, ...body.headers, 'content-length': String(body.payload.length) } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode!, body: text }));
            response.on('error', reject);
          },
        );
        upload.on('error', reject);
        void (async () => {
          const chunk = 32 * 1024;
          for (let offset = 0; offset < body.payload.length; offset += chunk) {
            if (offset === 8 * chunk) {
              // The request is under way (headers and 256 KiB sent): now the server is told to stop.
              await sleep(100);
              server.child.kill('SIGTERM');
              await sleep(300);
              expect(await tryConnect(server.port), 'a new connection during shutdown').toBe('ECONNREFUSED');
            }
            upload.write(body.payload.subarray(offset, offset + chunk));
            await sleep(10);
          }
          upload.end();
        })().catch(reject);
      });
      const { status, body: text } = await answer;
      expect(status, text).toBe(201);
      const digest = createHash('sha256').update(content).digest('hex');
      expect((JSON.parse(text) as { _digest: { _value: string } })._digest._value).toBe(digest);
      expect(await exitWithin(server, 20_000)).toBe(0);

      // Acknowledged during shutdown, so kept.
      server = await startServerProcess({ ...fixture, port: server.port });
      const stored = await fetch(`${server.base}/v1/files/lab/a/slow`, { headers: { ...admin, accept: '*/*' } });
      expect(stored.status).toBe(200);
      expect(createHash('sha256').update(Buffer.from(await stored.arrayBuffer())).digest('hex')).toBe(digest);
    } finally {
      await kill(server);
    }
  }, 60_000);
});
