/**
 * One client's share of the reranker's and the generator's queues: a client that holds its share
 * gets 429 code 5 with Retry-After, naming its share, while another client is still admitted.
 * The client is the key the per-client bounds count under (clientKey: an IPv6 address by its /64,
 * the client a --trust-proxy proxy names).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureApp, settingsWith, type Fixture } from './app-fixture.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { defaultPerCallerPlaces } from '../../src/llm/queue.js';
import { QueuedReranker } from '../../src/rerank/queued.js';
import type { Reranker } from '../../src/rerank/types.js';

/** A reranker whose scorings each wait until the test lets them finish (keeping BM25 order). */
function gatedReranker() {
  const pending: (() => void)[] = [];
  const reranker: Reranker = {
    kind: 'cross-encoder',
    description: 'gated',
    score: (_query, passages) => new Promise((resolve) => pending.push(() => resolve(passages.map((_, i) => -i)))),
    close: async () => {},
  };
  return { reranker, pending };
}

/** `inner` counting its calls: a call has its place in the queue (or its refusal) by the time it is counted. */
function counted<T extends object>(inner: T, method: keyof T): { wrapped: T; calls: () => number } {
  let calls = 0;
  const original = inner[method] as (...args: unknown[]) => unknown;
  const wrapped = Object.create(inner) as T;
  (wrapped as Record<keyof T, unknown>)[method] = (...args: unknown[]) => {
    calls++;
    return original.apply(inner, args);
  };
  return { wrapped, calls: () => calls };
}

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const SHARE_REFUSAL = /^too many (rerankings are waiting for the reranker|questions are waiting for an answer) from this client: it holds its share of the queue/;

interface Answered {
  statusCode: number;
  headers: Record<string, unknown>;
  json: () => { detail: { code: number; detail: string } };
}

function expectShareRefusal(response: Answered, setting: string) {
  expect(response.statusCode).toBe(429);
  expect(response.json().detail).toMatchObject({ code: 5, detail: expect.stringMatching(SHARE_REFUSAL) });
  expect(response.json().detail.detail).toContain(setting);
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

describe("GET /retrieval/ with one client holding its share of the reranker's queue", () => {
  it('refuses that client with 429 code 5 while another client is admitted and served', async () => {
    const { reranker, pending } = gatedReranker();
    // One scoring and one waiting: the default share is one place each.
    const queued = counted(new QueuedReranker(reranker, 1, defaultPerCallerPlaces(1)), 'score');
    fixture = await fixtureApp(undefined, { reranker: queued.wrapped });
    const get = (remoteAddress: string) => fixture!.app.inject({ method: 'GET', url: '/retrieval/?query=place%20cells', remoteAddress });

    const first = get('192.0.2.1');
    await expect.poll(() => pending.length).toBe(1);
    expectShareRefusal(await get('192.0.2.1'), '--reranker-queue-per-client');
    // Another client takes the waiting place while the first still scores.
    const other = get('192.0.2.2');
    await expect.poll(() => queued.calls()).toBe(3);
    pending.shift()!();
    expect((await first).statusCode).toBe(200);
    await expect.poll(() => pending.length).toBe(1);
    pending.shift()!();
    expect((await other).statusCode).toBe(200);
    // Its place given back, the first client is admitted again.
    const again = get('192.0.2.1');
    await expect.poll(() => pending.length).toBe(1);
    pending.shift()!();
    expect((await again).statusCode).toBe(200);
  });
});

describe("QA with one client holding its share of the generator's queue", () => {
  it('counts an IPv6 client by its /64: another address of it is refused, another /64 is admitted', async () => {
    const { reranker, pending } = gatedReranker();
    const generator = counted(new ExtractiveGenerator({ queueSize: 1, queuePerClient: defaultPerCallerPlaces(1) }), 'generate');
    fixture = await fixtureApp(undefined, { generator: () => generator.wrapped, reranker });
    const ask = (remoteAddress: string) =>
      fixture!.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'Which cells fire in CA1?' }, remoteAddress });

    // QA's reranking runs in the generator's slot: the first question holds it while it reranks.
    const first = ask('2001:db8:1:2::1');
    await expect.poll(() => pending.length).toBe(1);
    expectShareRefusal(await ask('2001:db8:1:2::9'), '--llm-queue-per-client');
    const other = ask('2001:db8:1:3::1');
    await expect.poll(() => generator.calls()).toBe(3);
    pending.shift()!();
    expect((await first).statusCode).toBe(200);
    await expect.poll(() => pending.length).toBe(1);
    pending.shift()!();
    expect((await other).statusCode).toBe(200);
  });

  it('counts each client behind a --trust-proxy proxy on the streamed route, refusing before the stream starts', async () => {
    const { reranker, pending } = gatedReranker();
    const generator = counted(new ExtractiveGenerator({ queueSize: 1, queuePerClient: defaultPerCallerPlaces(1) }), 'generate');
    fixture = await fixtureApp(undefined, { generator: () => generator.wrapped, reranker }, { flags: ['--trust-proxy', '10.0.0.1'] });
    const ask = (client: string) =>
      fixture!.app.inject({
        method: 'POST',
        url: '/qa/streamed_generative',
        payload: { query: 'Which cells fire in CA1?' },
        remoteAddress: '10.0.0.1',
        headers: { 'x-forwarded-for': client },
      });

    const first = ask('203.0.113.1');
    await expect.poll(() => pending.length).toBe(1);
    const refused = await ask('203.0.113.1');
    expect(refused.headers['content-type']).toContain('application/json');
    expectShareRefusal(refused, '--llm-queue-per-client');
    const other = ask('203.0.113.2');
    await expect.poll(() => generator.calls()).toBe(3);
    pending.shift()!();
    expect((await first).body).toContain('event: result\n');
    await expect.poll(() => pending.length).toBe(1);
    pending.shift()!();
    expect((await other).body).toContain('event: result\n');
  });
});

describe('/settings', () => {
  it('shows each queue share in force: unset, half of its places; 0 when turned off', async () => {
    expect(await settingsWith([])).toMatchObject({ llmQueueSize: 8, llmQueuePerClient: 5, rerankerQueueSize: 8, rerankerQueuePerClient: 5 });
    expect(await settingsWith(['--llm-queue-size', '3', '--reranker-queue-per-client', '0'])).toMatchObject({ llmQueuePerClient: 2, rerankerQueuePerClient: 0 });
  });
});
