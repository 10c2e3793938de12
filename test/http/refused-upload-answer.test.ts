/**
 * An upload refused before its body was read (a bad file name, a declared length no file fits) is
 * answered with `Connection: close` while the client is still sending. The client reads that answer:
 * the server ends its side after it and drops what the client still sends (a lingering close), where it
 * had closed at once and Node's fetch failed its next write (EPIPE) before reading the 400 or 413.
 * The lingering is bounded in time and bytes.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER_MAX_BYTES, LINGER_MS } from '../../src/http/lingering-close.js';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { killChild } from '../reliability/server-process.js';

const TOKEN = 'writer-token';
const AUTH = {
  tokens: { [TOKEN]: { realm: 'local', subject: 'writer' } },
  acls: { '/': { 'local/writer': ['*'] } },
};
const UPLOAD_PATH = '/v1/files/org/proj';
/** A declared length no file fits (the default bound is 10 GiB): 413 before the body is read. */
const TOO_LONG = String(11 * 1024 ** 3);
const BOUNDARY = 'refused-upload-boundary';
/** A file name with a zero-width space: 400 InvalidFile once the part's headers are read. */
const INVISIBLE_NAME = 'report\u200b.pdf';

let fixture: Fixture;
let port: number;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { auth: AUTH });
  await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  port = (fixture.app.server.address() as net.AddressInfo).port;
  for (const url of ['/v1/orgs/org', '/v1/projects/org/proj']) {
    const created = await fixture.app.inject({ method: 'PUT', url, headers: { authorization: `Bearer ${TOKEN}` }, payload: {} });
    expect(created.statusCode).toBe(201);
  }
});
afterAll(() => fixture.close());

/** The head of a multipart body whose file part is named `filename`; its bytes follow. */
function partHead(filename: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
}

type UploadBody =
  /** A FormData holding a Blob of `bytes` zeros under `filename`: fetch sends it with its Content-Length. */
  | { kind: 'form'; filename: string; bytes: number }
  /** `head`, then zeros without end, as a stream (chunked, or under the declared `contentLength`). */
  | { kind: 'stream'; head: string; contentLength?: string };

/**
 * Node's fetch, run in a child process: its own event loop, as a real client has. Run in the server's
 * loop, it read the answer before its next write every time, and the failure never showed. It was a
 * worker thread, but terminating a thread whose fetch is still writing can abort the whole process
 * (nodejs/node#38418), which took down the test runner's fork once in about ten runs; a child is killed alone.
 * It prints one JSON line: the answer's status and body, or the client's error.
 */
const FETCH_CLIENT = `
const { url, authorization, body } = JSON.parse(process.env.UPLOAD_REQUEST);
async function upload() {
  if (body.kind === 'form') {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(body.bytes)]), body.filename);
    return fetch(url, { method: 'POST', headers: { authorization }, body: form });
  }
  const headers = { authorization, 'content-type': 'multipart/form-data; boundary=${BOUNDARY}' };
  if (body.contentLength !== undefined) headers['content-length'] = body.contentLength;
  const chunk = new Uint8Array(64 * 1024);
  let headSent = false;
  const stream = new ReadableStream({
    pull(controller) {
      controller.enqueue(headSent ? chunk : new TextEncoder().encode(body.head));
      headSent = true;
    },
  });
  return fetch(url, { method: 'POST', headers, body: stream, duplex: 'half' });
}
const report = (outcome) => process.stdout.write(JSON.stringify(outcome) + '\\n');
upload().then(
  async (response) => report({ status: response.status, body: await response.text() }),
  (error) => report({ error: String(error.cause?.code ?? error.cause?.message ?? error.message) }),
);
`;

type Outcome = { status: number; body: string } | { error: string };

/** Runs one upload in a client process; the client is killed once it has printed its outcome (a streamed body never ends). */
async function fetchUpload(body: UploadBody): Promise<Outcome> {
  const request = JSON.stringify({ url: `http://127.0.0.1:${port}${UPLOAD_PATH}`, authorization: `Bearer ${TOKEN}`, body });
  const client = spawn(process.execPath, ['-e', FETCH_CLIENT], { env: { ...process.env, UPLOAD_REQUEST: request }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    return await new Promise<Outcome>((resolve, reject) => {
      let printed = '';
      let errors = '';
      client.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        printed += chunk;
        if (printed.includes('\n')) resolve(JSON.parse(printed.slice(0, printed.indexOf('\n'))) as Outcome);
      });
      client.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
      client.once('error', reject);
      client.once('exit', (code, signal) => reject(new Error(`the upload client exited (${code ?? signal}) without an outcome: ${errors}`)));
    });
  } finally {
    await killChild(client);
  }
}

/** The parts of an outcome a test compares: the status and the error type of the body, or the client's error. */
function answerOf(outcome: Outcome): { status: number; type: string } | { error: string } {
  return 'error' in outcome ? outcome : { status: outcome.status, type: JSON.parse(outcome.body)['@type'] };
}

/** Each upload is tried a few times: without the lingering close every streamed try failed, and about a third of the FormData ones. */
const TRIES = 5;

describe("Node's fetch reads the refusal of an upload it is still sending", () => {
  it('a FormData Blob of 8 MB under an invisible file name: 400 InvalidFile', async () => {
    for (let i = 0; i < TRIES; i++) {
      expect(answerOf(await fetchUpload({ kind: 'form', filename: INVISIBLE_NAME, bytes: 8 * 1024 * 1024 }))).toEqual({ status: 400, type: 'InvalidFile' });
    }
  });

  it('a streamed body under an invisible file name: 400 InvalidFile', async () => {
    for (let i = 0; i < TRIES; i++) {
      expect(answerOf(await fetchUpload({ kind: 'stream', head: partHead(INVISIBLE_NAME) }))).toEqual({ status: 400, type: 'InvalidFile' });
    }
  });

  it('a streamed body declaring a length no file fits: 413 FileTooLarge', async () => {
    for (let i = 0; i < TRIES; i++) {
      expect(answerOf(await fetchUpload({ kind: 'stream', head: partHead('large.bin'), contentLength: TOO_LONG }))).toEqual({ status: 413, type: 'FileTooLarge' });
    }
  });
});

interface RawUpload {
  socket: net.Socket;
  /** The answer's head and body, once the server has ended its side. */
  answer: Promise<string>;
  /** Resolves with the socket's error code when the connection fails, or 'closed' when it closes cleanly. */
  closed: Promise<string>;
}

/** Sends the head of an upload declaring a length no file fits, and the start of its body. */
function rawUpload(): RawUpload {
  // The client keeps its side open after the server's end, as a client still sending does.
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  socket.write(
    `POST ${UPLOAD_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${TOO_LONG}\r\n\r\n${partHead('large.bin')}`,
  );
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const answer = new Promise<string>((resolve) => socket.once('end', () => resolve(received)));
  let failure = 'closed';
  socket.on('error', (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(failure)));
  return { socket, answer, closed };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes zeros until the connection fails; resolves with the bytes the socket took. */
async function writeUntilCut(socket: net.Socket): Promise<number> {
  const chunk = Buffer.alloc(256 * 1024);
  let written = 0;
  while (!socket.destroyed) {
    if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
    written += chunk.length;
  }
  return written;
}

describe('the lingering close', () => {
  it("takes what the client sends after the answer, until the client closes its side", async () => {
    const upload = rawUpload();
    expect(await upload.answer).toMatch(/^HTTP\/1\.1 413 [^]*connection: close[^]*"FileTooLarge"/i);
    // Written after the server's end: a server that had closed its socket answers them with a reset.
    await pause(100);
    upload.socket.write(Buffer.alloc(1024 * 1024));
    await pause(100);
    upload.socket.end();
    expect(await upload.closed).toBe('closed');
  });

  it(`closes a connection whose client sends slowly and never closes its side after ${LINGER_MS} ms`, async () => {
    const upload = rawUpload();
    await upload.answer;
    const answeredAt = Date.now();
    // A server's close reaches a client that has its end already only as the reset its next write gets.
    while (!upload.socket.destroyed) {
      upload.socket.write(Buffer.alloc(1024));
      await pause(100);
    }
    expect(['ECONNRESET', 'EPIPE']).toContain(await upload.closed);
    const lingered = Date.now() - answeredAt;
    // Measured from the answer's arrival, a moment after the server's end (which a closing server resets within 100 ms).
    expect(lingered).toBeGreaterThanOrEqual(LINGER_MS - 200);
    expect(lingered).toBeLessThan(LINGER_MS + 2_000);
  });

  it(`cuts a client that goes on sending once ${LINGER_MAX_BYTES / 1024 ** 2} MiB have been dropped`, async () => {
    const upload = rawUpload();
    await upload.answer;
    const answeredAt = Date.now();
    const written = await writeUntilCut(upload.socket);
    expect(['ECONNRESET', 'EPIPE']).toContain(await upload.closed);
    // Cut by the byte bound, before the time bound.
    expect(Date.now() - answeredAt).toBeLessThan(LINGER_MS);
    expect(written).toBeGreaterThan(LINGER_MAX_BYTES);
  });
});
