/**
 * A client that closes the connection during a file upload is not a server fault: one line at
 * info level (as README says of QA disconnects), no error line, nothing stored, and the file id
 * free for the next write. A real fault during an upload still logs at error level.
 */
import { readdir } from 'node:fs/promises';
import { type Socket, connect } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { logAbandonedRequests } from '../../src/http/abandoned-requests.js';
import { PLATFORM_MAX_PARAM_LENGTH, platformApi } from '../../src/http/platform/index.js';
import { TOKENS, type TestServer, bearer, createProject, multipart, serverApiOptions, startServer } from './helpers.js';
import { until } from '../until.js';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  err?: { message: string };
}

let server: TestServer;
/** The platform API of `server`, listening on a socket and logging into `lines`. */
let app: FastifyInstance;
let port: number;
const lines: LogLine[] = [];

beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger: FastifyBaseLogger = pino({ level: 'info' }, stream);
  app = Fastify({ loggerInstance: logger, routerOptions: { maxParamLength: PLATFORM_MAX_PARAM_LENGTH } });
  // As the server's app does (app.ts): the one line a request whose client left gets.
  logAbandonedRequests(app);
  // Stands for a slow precondition check (a busy store): the handler reads the body only once the client has gone.
  app.addHook('preHandler', async (request) => {
    if (request.headers['x-test-wait-for-close']) await new Promise((resolve) => request.raw.once('close', resolve));
  });
  await app.register(platformApi, serverApiOptions(server));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await app.close();
  await server.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const BOUNDARY = 'upload-abort-boundary';

/** Opens a PUT of a 2 MB upload and sends its headers and the file part's headers, not its bytes. */
async function startUpload(id: string, headers: Record<string, string> = {}): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // we hang up ourselves
  await new Promise((resolve) => socket.once('connect', resolve));
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(
    `PUT /v1/files/org/proj/${id} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.alice}\r\n${extra.join('')}` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 2000000\r\n\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  return socket;
}

/** The lines of the one request to `id` (fastify's own 'incoming request' line carries its URL and request id). */
function linesOf(id: string): LogLine[] {
  const incoming = lines.find((line) => line.msg === 'incoming request' && JSON.stringify(line).includes(`/v1/files/org/proj/${id}`));
  return incoming ? lines.filter((line) => line.reqId === incoming.reqId) : [];
}

async function storedFiles(): Promise<string[]> {
  const root = path.join(server.dataDir, 'platform', 'files');
  return (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** The id was left unstored and unreserved: a fresh upload under it is created. */
async function expectFree(id: string): Promise<void> {
  expect((await server.app.inject({ method: 'GET', url: `/v1/files/org/proj/${id}` })).statusCode).toBe(404);
  const body = await multipart('after.txt', 'written after the disconnect');
  const retry = await server.app.inject({ method: 'PUT', url: `/v1/files/org/proj/${id}`, headers: { ...bearer(TOKENS.alice), ...body.headers }, payload: body.payload });
  expect(retry.statusCode).toBe(201);
}

async function expectOneInfoLine(id: string): Promise<void> {
  await until(() => linesOf(id).some((line) => line.msg.includes('client disconnected')));
  await new Promise((resolve) => setTimeout(resolve, 200)); // any later line would have arrived
  const logged = linesOf(id);
  expect(logged.filter((line) => line.level >= 40)).toEqual([]);
  expect(logged.filter((line) => line.msg.includes('client disconnected')).map((line) => line.level)).toEqual([30]);
}

describe('a client that disconnects during an upload', () => {
  test('mid-body: one info line, no error, nothing stored', async () => {
    const before = await storedFiles();
    const socket = await startUpload('cut-mid-body');
    socket.write(Buffer.alloc(200_000, 7));
    // The handler is streaming the part into a temporary file.
    await until(async () => (await storedFiles()).length > before.length);
    socket.destroy();
    await expectOneInfoLine('cut-mid-body');
    expect(await storedFiles()).toEqual(before);
    await expectFree('cut-mid-body');
  });

  test('before the handler reads the body: the request ends instead of waiting for ever', async () => {
    const socket = await startUpload('cut-before-read', { 'x-test-wait-for-close': '1' });
    await until(() => linesOf('cut-before-read').length > 0);
    socket.destroy();
    await expectOneInfoLine('cut-before-read');
    // A handler left waiting would keep the id reserved: the next write would be 409.
    await expectFree('cut-before-read');
  });
});

test('a server fault during an upload is still a 500 logged at error level, even one that looks like a disconnect', async () => {
  // An outgoing connection reset (a PostgreSQL store, say) carries the same message and code as a client's.
  const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
  vi.spyOn(server.platform.files, 'create').mockRejectedValueOnce(reset);
  const body = await multipart('fault.txt', 'x');
  const response = await fetch(`http://127.0.0.1:${port}/v1/files/org/proj/fault`, {
    method: 'PUT',
    headers: { ...bearer(TOKENS.alice), ...body.headers },
    body: body.payload,
  });
  expect(response.status).toBe(500);
  expect(((await response.json()) as { '@type': string })['@type']).toBe('UnexpectedError');
  const errors = linesOf('fault').filter((line) => line.level >= 50);
  expect(errors.map((line) => [line.msg, line.err?.message])).toEqual([['platform request failed', 'aborted']]);
});
