/**
 * How /v1 errors are logged: a fault of the server at error level with its stack; a platform store
 * that cannot be reached (503, often thousands of requests a second during an outage) at warn level,
 * one line naming the cause, without a stack.
 */
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { handleError } from '../../src/http/platform/errors.js';
import { StoreUnavailableError } from '../../src/platform/errors.js';

interface LogLine {
  level: number;
  msg: string;
  status?: number;
  reason?: string;
  cause?: string;
  err?: { message: string; stack?: string };
}

const lines: LogLine[] = [];
let app: FastifyInstance;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const logger: FastifyBaseLogger = pino({ level: 'info' }, stream);
  app = Fastify({ loggerInstance: logger, disableRequestLogging: true });
  app.setErrorHandler(handleError);
  app.get('/away', async () => {
    throw new StoreUnavailableError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
  });
  const errno = (code: string) => Object.assign(new Error(`${code}: in the test`), { code });
  app.get('/busy', async () => {
    throw Object.assign(new Error('server busy: 8 requests in progress; retry shortly'), { statusCode: 503 });
  });
  app.get('/full', async () => {
    throw errno('ENOSPC');
  });
  app.get('/no-descriptors', async () => {
    throw errno('EMFILE');
  });
  app.get('/fault', async () => {
    throw new Error('a bug');
  });
  await app.ready();
});
afterAll(() => app.close());
beforeEach(() => {
  lines.length = 0;
});

test('a store that cannot be reached is one warn line with the cause, no stack', async () => {
  const response = await app.inject({ method: 'GET', url: '/away' });
  expect(response.statusCode).toBe(503);
  expect(response.headers['retry-after']).toBe('5');
  expect(lines.map(({ level, msg, cause, err }) => ({ level, msg, cause, err }))).toEqual([
    { level: 40, msg: 'platform store unavailable', cause: 'connect ECONNREFUSED 127.0.0.1:5432', err: undefined },
  ]);
});

test('a fault of the server is an error line with its stack', async () => {
  const response = await app.inject({ method: 'GET', url: '/fault' });
  expect(response.statusCode).toBe(500);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 50, msg: 'platform request failed', err: { message: 'a bug' } });
  expect(lines[0]!.err!.stack).toContain('a bug');
});

test('overload, a full disk and no descriptors left are one warn line each, without a stack', async () => {
  const answers = [];
  for (const url of ['/busy', '/full', '/no-descriptors']) answers.push(await app.inject({ method: 'GET', url }));
  expect(answers.map((response) => [response.statusCode, response.json()['@type']])).toEqual([
    [503, 'ServiceUnavailable'],
    [507, 'InsufficientStorage'],
    [503, 'ServiceUnavailable'],
  ]);
  expect(lines.map(({ level, msg, status, err }) => ({ level, msg, status, err }))).toEqual([
    { level: 40, msg: 'platform request refused', status: 503, err: undefined },
    { level: 40, msg: 'platform request refused', status: 507, err: undefined },
    { level: 40, msg: 'platform request refused', status: 503, err: undefined },
  ]);
});
