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
import { type Socket, connect } from 'node:net';
import { once } from 'node:events';
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

/** A write whose client sends part of its body and then nothing: it would hold a drain for ever. */
/**
 * A write whose body stops short, once the server is reading it: the 100 Continue comes only when the body is
 * about to be read. A fixed pause had not been enough under load: a request whose head the server had not yet
 * parsed at the signal was an idle connection, closed at once without a line.
 */
async function unfinishedWrite(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  socket.write(`PUT /v1/resources/lab/a/_/never-finished HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${admin.authorization}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n');
  let answer = '';
  while (!answer.includes('100 Continue')) answer += String((await once(socket, 'data'))[0]);
  socket.write('{"note": ');
  return socket;
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
      // Whole, so the server did not end before its last byte (it may end before the client has read them all).
      await expectWholeArchive(await finishing, fixture);
      // Exits once the download is done, not after the keep-alive timeout (72 s) of the now idle connection.
      expect(await exitWithin(server, 20_000)).toBe(0);
    } finally {
      await kill(server);
    }
  }, 60_000);

  it("a request sent on an open connection during the drain gets the API's own 503, with the request id, security headers and Retry-After", async () => {
    const server = await startServerProcess(fixture);
    try {
      // The download holds the drain open while the requests below are sent.
      const download = await startDownload(await createArchive(server, fixture));
      expect(await download.readAtLeast(256 * 1024)).toBe(false);
      // On each connection, a resource write whose body is still coming at the signal, and a request sent behind it.
      const connections = await Promise.all(
        ['drained-v1', 'drained-literature'].map(async (id) => {
          const socket = connect(server.port, '127.0.0.1');
          await once(socket, 'connect');
          let received = '';
          socket.setEncoding('latin1');
          socket.on('data', (chunk: string) => (received += chunk));
          const body = JSON.stringify({ '@id': id, note: 'written through the drain' });
          socket.write(`PUT /v1/resources/lab/a/_/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${admin.authorization}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
          return { socket, body, closed: once(socket, 'close'), received: () => received };
        }),
      );
      await sleep(200);
      server.child.kill('SIGTERM');
      await sleep(300);
      const [v1, literature] = connections;
      v1!.socket.write(`${v1!.body.slice(10)}GET /v1/resources/lab/a/_/drained-v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${admin.authorization}\r\n\r\n`);
      literature!.socket.write(`${literature!.body.slice(10)}GET /retrieval/?query=cancer HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      await Promise.all(connections.map((connection) => connection.closed));
      for (const [connection, expectedBody] of [
        [v1!, { '@type': 'ServiceUnavailable' }],
        [literature!, { detail: { code: 13 } }],
      ] as const) {
        const [written, refused] = connection.received().split(/(?=HTTP\/1\.1 )/);
        expect(written, connection.received()).toMatch(/^HTTP\/1\.1 201 /);
        expect(refused, connection.received()).toMatch(/^HTTP\/1\.1 503 /);
        const [head, text] = refused!.split('\r\n\r\n');
        expect(head).toMatch(/\r\nretry-after: 5\r\n/i);
        expect(head).toMatch(/\r\nx-request-id: \S+\r\n/i);
        expect(head).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
        expect(head).toMatch(/\r\nconnection: close\r\n/i);
        const answer = JSON.parse(text!) as Record<string, unknown>;
        expect(answer).toMatchObject(expectedBody);
        expect(JSON.stringify(answer)).toContain('server shutting down');
      }
      await expectWholeArchive(await download.readToEnd(0), fixture);
      expect(await exitWithin(server, 20_000)).toBe(0);
    } finally {
      await kill(server);
    }
  }, 60_000);

  it('a request still running when the drain time is up is cut, logged as cut rather than as its client leaving, and the process exits 0', async () => {
    const server = await startServerProcess({ ...fixture, extraFlags: ['--shutdown-timeout', '1s', '--log-level', 'info'] });
    try {
      const socket = await unfinishedWrite(server.port);
      await sleep(200);
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      expect(await exitWithin(server, 20_000)).toBe(0);
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(1_000);
      const cutLine = server.output().split('\n').find((line) => line.includes('connection cut before the response was sent'));
      expect(cutLine, server.output()).toContain('the shutdown drain ended (--shutdown-timeout ran out, or a second signal came)');
      expect(cutLine).toContain('/v1/resources/lab/a/_/never-finished');
      // Written before the server lets go of its index on the way out: the exit waits for it (it came after, when it
      // came at all, and a loaded machine's exit had lost it).
      const lines = server.output().split('\n');
      expect(lines.indexOf(cutLine!)).toBeLessThan(lines.findIndex((line) => line.includes('index generation released')));
      expect(server.output()).toContain('drain time up: closing the connections still open');
      expect(server.output()).not.toContain('client disconnected before the response was sent');
      socket.destroy();
    } finally {
      await kill(server);
    }
  }, 60_000);

  it('a second signal cuts the drain short: the connections still open are closed and the process exits 0', async () => {
    const server = await startServerProcess(fixture);
    try {
      const socket = await unfinishedWrite(server.port);
      await sleep(200);
      server.child.kill('SIGTERM');
      await sleep(300);
      // Without it, the drain would wait its 30 s.
      server.child.kill('SIGINT');
      expect(await exitWithin(server, 10_000)).toBe(0);
      expect(server.output()).toContain('second signal: closing the connections still open');
      socket.destroy();
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
