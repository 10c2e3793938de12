/** The reranker's queue: one scoring at a time, a bounded wait, the rest refused (src/rerank/queued.ts). */
import { describe, expect, it } from 'vitest';
import { QueueFullError } from '../../src/llm/types.js';
import { QueuedReranker } from '../../src/rerank/queued.js';
import { RerankerUnavailableError, type Reranker } from '../../src/rerank/types.js';

/** A reranker whose scorings finish when the test says so, logging when each starts and ends. */
function heldReranker() {
  const log: string[] = [];
  const releases: (() => void)[] = [];
  let closed = false;
  const reranker: Reranker = {
    kind: 'cross-encoder',
    description: 'held',
    score: async (query, passages) => {
      log.push(`start ${query}`);
      await new Promise<void>((resolve) => releases.push(resolve));
      log.push(`end ${query}`);
      return passages.map((p) => p.length);
    },
    close: async () => void (closed = true),
  };
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { reranker, log, release: () => releases.shift()!(), turn, isClosed: () => closed };
}

describe('QueuedReranker', () => {
  it('scores one request at a time, in arrival order, with the wrapped reranker\'s scores', async () => {
    const held = heldReranker();
    const queued = new QueuedReranker(held.reranker, 4);
    expect(queued.kind).toBe('cross-encoder');
    const a = queued.score('a', ['x', 'yy']);
    const b = queued.score('b', ['zzz']);
    await held.turn();
    expect(held.log).toEqual(['start a']);
    held.release();
    expect(await a).toEqual([1, 2]);
    await held.turn();
    expect(held.log).toEqual(['start a', 'end a', 'start b']);
    held.release();
    expect(await b).toEqual([3]);
  });

  it('refuses at once beyond the waiting bound, with a retry estimate, and takes requests again once there is room', async () => {
    const held = heldReranker();
    const queued = new QueuedReranker(held.reranker, 1);
    const running = queued.score('a', ['x']);
    const waiting = queued.score('b', ['x']);
    const refused = await queued.score('c', ['x']).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QueueFullError);
    expect((refused as QueueFullError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    await held.turn();
    held.release();
    await running;
    await held.turn();
    held.release();
    await waiting;
    const again = queued.score('d', ['x']);
    await held.turn();
    held.release();
    expect(await again).toEqual([1]);
    expect(held.log).not.toContain('start c');
  });

  it('an empty request takes no turn', async () => {
    const held = heldReranker();
    const queued = new QueuedReranker(held.reranker, 1);
    void queued.score('a', ['x']);
    void queued.score('b', ['x']);
    expect(await queued.score('c', [])).toEqual([]);
  });

  it('a request whose client left while it waited leaves the queue, with the signal\'s reason, and is never scored', async () => {
    const held = heldReranker();
    const queued = new QueuedReranker(held.reranker, 1);
    const running = queued.score('a', ['x']);
    const controller = new AbortController();
    const waiting = queued.score('b', ['x'], controller.signal).catch((e: unknown) => e);
    controller.abort(new Error('client disconnected'));
    expect(await waiting).toMatchObject({ message: 'client disconnected' });
    // Its place is free: another request may wait.
    const next = queued.score('c', ['x']);
    await held.turn();
    held.release();
    await running;
    await held.turn();
    held.release();
    await next;
    expect(held.log).toEqual(['start a', 'end a', 'start c', 'end c']);
  });

  it('closing refuses the requests still waiting as unavailable and closes the reranker', async () => {
    const held = heldReranker();
    const queued = new QueuedReranker(held.reranker, 2);
    const running = queued.score('a', ['x']);
    const waiting = queued.score('b', ['x']).catch((e: unknown) => e);
    await held.turn();
    await queued.close();
    expect(await waiting).toBeInstanceOf(RerankerUnavailableError);
    expect(held.isClosed()).toBe(true);
    held.release();
    await running;
  });
});
