/** At the default level each request leaves one log line: request and response together (issue 12 item 14). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { capturingLogger } from './captured-log.js';

const { lines, logger } = capturingLogger();
let fixture: Fixture;
beforeAll(async () => {
  fixture = await fixtureApp(undefined, {}, { logger });
});
afterAll(() => fixture.close());

async function linesOf(send: () => Promise<{ headers: Record<string, unknown> }>) {
  const response = await send();
  await new Promise((r) => setTimeout(r, 50)); // pino writes asynchronously
  return lines.filter((line) => line.reqId === response.headers['x-request-id']);
}

describe('request logging', () => {
  it('logs one line per request with method, url, status and time', async () => {
    const logged = await linesOf(() => fixture.app.inject({ method: 'GET', url: '/retrieval/article_count?topics=cells' }));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 30, method: 'GET', url: '/retrieval/article_count?topics=cells', statusCode: 200 });
    expect(typeof logged[0]!.responseTime).toBe('number');
  });

  it('logs one line for an error response', async () => {
    const logged = await linesOf(() => fixture.app.inject({ method: 'GET', url: '/retrieval/article_listing?page=0' }));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ statusCode: 422 });
  });

  it('logs one line per question, with the stage timings', async () => {
    const logged = await linesOf(() => fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'Which cells fire in CA1?' } }));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ method: 'POST', url: '/qa/generative', statusCode: 200, cited: expect.any(Number) });
    expect(logged[0]!.timings).toMatchObject({ retrieveMs: expect.any(Number), generateMs: expect.any(Number) });
  });

  it('logs one line per streamed question', async () => {
    const logged = await linesOf(() => fixture.app.inject({ method: 'POST', url: '/qa/streamed_generative', payload: { query: 'Which cells fire in CA1?' } }));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ url: '/qa/streamed_generative', statusCode: 200, cited: expect.any(Number) });
  });
});
