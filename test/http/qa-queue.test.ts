/**
 * QA's reranking waits its turn in the generator's queue, and a streamed
 * question that waits there keeps its connection alive with SSE comments.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import type { Reranker } from '../../src/rerank/types.js';
import { WAITING_COMMENT_INTERVAL_MS } from '../../src/http/literature/qa.js';
import { until } from '../until.js';

/** A reranker whose calls each wait until the test finishes them (keeping BM25 order, or with given scores). */
function gatedReranker() {
  const pending: ((scores?: number[]) => void)[] = [];
  const reranker: Reranker = {
    kind: 'cross-encoder',
    description: 'gated',
    score: (_query, passages) =>
      new Promise((resolve) => pending.push((scores) => resolve(scores ?? passages.map((_, i) => -i)))),
    close: async () => {},
  };
  return { reranker, pending };
}

let fixture: Fixture | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await fixture?.close();
  fixture = undefined;
});

const payload = { query: 'Which cells fire at specific locations in CA1?' };
const ask = (path: string) => fixture!.app.inject({ method: 'POST', url: path, payload });

describe('reranking for QA', () => {
  it('runs in the generator queue: one question reranks at a time, and a refused one never reaches the reranker', async () => {
    // A streamed question sets its waiting-comment interval once admitted: how the test sees it waiting.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { reranker, pending } = gatedReranker();
    const generator = new ExtractiveGenerator({ queueSize: 1 });
    fixture = await fixtureApp(undefined, { generator: () => generator, reranker });

    const first = ask('/qa/generative');
    await until(() => pending.length === 1);
    const second = ask('/qa/streamed_generative');
    await until(() => vi.getTimerCount() === 1);
    const refused = await ask('/qa/generative');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail.code).toBe(5);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The second question waits for the slot rather than reranking beside the first.
    expect(pending).toHaveLength(1);

    pending[0]!();
    expect((await first).statusCode).toBe(200);
    await until(() => pending.length === 2);
    pending[1]!();
    expect((await second).statusCode).toBe(200);
  });
});

describe('a streamed question waiting in the queue', () => {
  it('gets the event-stream headers and a comment every interval until its first token; a refusal stays a plain 429', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { reranker, pending } = gatedReranker();
    const generator = new ExtractiveGenerator({ queueSize: 1 });
    fixture = await fixtureApp(undefined, { generator: () => generator, reranker });

    const holder = ask('/qa/generative');
    await until(() => pending.length === 1);
    const waiting = ask('/qa/streamed_generative');
    await until(() => vi.getTimerCount() === 1);
    const refused = await ask('/qa/streamed_generative');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toContain('application/json');
    expect(refused.headers['retry-after']).toBeDefined();

    vi.advanceTimersByTime(2 * WAITING_COMMENT_INTERVAL_MS);
    pending[0]!();
    await holder;
    await until(() => pending.length === 2);
    pending[1]!();
    const response = await waiting;
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/event-stream');
    expect(response.body.startsWith(': waiting\n\n: waiting\n\nevent: token\n')).toBe(true);
    expect(response.body).toContain('event: result\n');
    // No comment after the first token: the interval ended with it.
    expect(response.body.indexOf(': waiting', 1 + response.body.indexOf('event: token'))).toBe(-1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reports a failure after the first comment as an error event, since the status is already sent', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { reranker, pending } = gatedReranker();
    fixture = await fixtureApp(undefined, { reranker });

    const response = ask('/qa/streamed_generative');
    await until(() => pending.length === 1);
    vi.advanceTimersByTime(WAITING_COMMENT_INTERVAL_MS);
    pending[0]!([NaN]);
    const { statusCode, body } = await response;
    expect(statusCode).toBe(200);
    expect(body.startsWith(': waiting\n\nevent: error\n')).toBe(true);
    const data = JSON.parse(body.split('\n').find((line) => line.startsWith('data: '))!.slice('data: '.length));
    expect(data.detail).toMatchObject({ code: 3, detail: expect.stringContaining('--reranker-model') });
  });

  it('sends nothing extra when the answer comes before the interval', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    fixture = await fixtureApp();
    const response = await ask('/qa/streamed_generative');
    expect(response.body.startsWith('event: token\n')).toBe(true);
    expect(response.body).not.toContain(': waiting');
    expect(vi.getTimerCount()).toBe(0);
  });
});
