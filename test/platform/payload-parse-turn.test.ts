/**
 * A /v1 JSON body is parsed, then checked (json-payload.ts); for a large body each holds the main thread
 * tens of milliseconds, so the event loop gets a turn between them. Seen here: a callback queued for the
 * next turn as the body's parse returns has run by the time its checks start.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { TOKENS, type TestServer, bearer, createProject, startServer } from './helpers.js';

const order = vi.hoisted(() => ({ events: [] as string[] }));

vi.mock('../../src/platform/payload-survey.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/platform/payload-survey.js')>();
  return {
    ...actual,
    surveyParsed: (value: unknown) => {
      order.events.push('checks');
      return actual.surveyParsed(value);
    },
  };
});

const alice = { ...bearer(TOKENS.alice), 'content-type': 'application/json' };
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await createProject(server.app, 'org', 'proj');
});
afterAll(() => server.close());

test("a /v1 body's checks start a turn of the event loop after its parse", async () => {
  const body = JSON.stringify({ name: 'turn', marker: 'the body of this test' });
  order.events.length = 0;
  const parse = JSON.parse;
  const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    const value = parse(text, reviver) as unknown;
    if (text === body) {
      order.events.push('parsed');
      setImmediate(() => order.events.push('next turn'));
    }
    return value;
  });
  try {
    const created = await server.app.inject({ method: 'PUT', url: '/v1/resources/org/proj/_/turn', headers: alice, payload: body });
    expect(created.statusCode).toBe(201);
  } finally {
    spy.mockRestore();
  }
  expect(order.events).toEqual(['parsed', 'next turn', 'checks']);
});
