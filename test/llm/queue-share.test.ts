/**
 * One caller's share of a BoundedQueue (src/llm/queue.ts): a caller holds at most its share of the
 * places, running or waiting, while other callers are still admitted; every way a job leaves the
 * queue gives its place back; and the generators apply --llm-queue-per-client (half the places by default).
 */
import { describe, expect, it } from 'vitest';
import { BoundedQueue, defaultPerCallerPlaces } from '../../src/llm/queue.js';
import { QueueFullError, type Context } from '../../src/llm/types.js';
import { createGenerator } from '../../src/llm/index.js';
import { helpText, loadConfig } from '../../src/config.js';

/** A job that finishes when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let started = false;
  return {
    job: async () => {
      started = true;
      await opened;
      return 'done';
    },
    open: () => open(),
    started: () => started,
  };
}

const SHARE = { places: 2, setting: '--llm-queue-per-client' };

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** What refused a job (a refusal comes at once), or 'admitted' when it took a place. */
function refusalOf(run: Promise<unknown>): Promise<unknown> {
  return Promise.race([run.then(() => 'admitted', (error: unknown) => error), tick().then(() => 'admitted')]);
}

/** Jobs of `caller` that each hold a place until the test opens them. */
function fill(queue: BoundedQueue, caller: string | undefined, count: number) {
  return Array.from({ length: count }, () => {
    const g = gate();
    return { ...g, run: queue.run(g.job, { caller }) };
  });
}

describe('a BoundedQueue with a per-caller share', () => {
  it("refuses a caller's job beyond its share, naming the share, while another caller is still admitted", async () => {
    const queue = new BoundedQueue(4, { perCaller: SHARE });
    const mine = fill(queue, 'a', 2);
    const refused = await refusalOf(queue.run(async () => 'x', { caller: 'a' }));
    expect(refused).toBeInstanceOf(QueueFullError);
    expect((refused as QueueFullError).message).toMatch(
      /^too many questions are waiting for an answer from this client: it holds its share of the queue \(2 places, --llm-queue-per-client\); retry in about \d+ s$/,
    );
    const other = gate();
    const theirs = queue.run(other.job, { caller: 'b' });
    expect(queue.waiting).toBe(2);
    for (const job of mine) job.open();
    other.open();
    expect(await Promise.all([...mine.map((job) => job.run), theirs])).toEqual(['done', 'done', 'done']);
  });

  it('bounds nothing per caller for jobs without one, nor with 0 places', async () => {
    const anonymous = new BoundedQueue(4, { perCaller: SHARE });
    const jobs = fill(anonymous, undefined, 5);
    expect(anonymous.waiting).toBe(4);
    for (const job of jobs) job.open();
    await Promise.all(jobs.map((job) => job.run));

    const unbounded = new BoundedQueue(4, { perCaller: { places: 0, setting: '--llm-queue-per-client' } });
    const same = fill(unbounded, 'a', 5);
    expect(unbounded.waiting).toBe(4);
    for (const job of same) job.open();
    await Promise.all(same.map((job) => job.run));
  });

  it('gives the place back when a job finishes, so the caller is admitted again', async () => {
    const queue = new BoundedQueue(4, { perCaller: SHARE });
    const [first, second] = fill(queue, 'a', 2);
    first!.open();
    await first!.run;
    // One place held (the second, now running): one more is within the share, a second more is not.
    const [third] = fill(queue, 'a', 1);
    expect(await refusalOf(queue.run(async () => 'x', { caller: 'a' }))).toBeInstanceOf(QueueFullError);
    second!.open();
    third!.open();
    await Promise.all([second!.run, third!.run]);
  });

  it('gives the place back when a job fails', async () => {
    const queue = new BoundedQueue(4, { perCaller: SHARE });
    for (let i = 0; i < 3; i++) {
      await expect(queue.run(async () => Promise.reject(new Error('boom')), { caller: 'a' })).rejects.toThrow('boom');
    }
    const holder = fill(queue, 'b', 1);
    const again = fill(queue, 'a', 2);
    expect(queue.waiting).toBe(2);
    for (const job of [...holder, ...again]) job.open();
    await Promise.all([...holder, ...again].map((job) => job.run));
  });

  it('gives the place back when a waiting job aborts, and the next waiter still moves up', async () => {
    const queue = new BoundedQueue(4, { perCaller: SHARE });
    const [running] = fill(queue, 'b', 1);
    const controller = new AbortController();
    const leaving = queue.run(async () => 'never', { caller: 'a', signal: controller.signal });
    const [staying] = fill(queue, 'a', 1);
    controller.abort(new Error('gone'));
    await expect(leaving).rejects.toThrow('gone');
    // The aborted place is free again: 'a' holds one (staying) and may take one more.
    const [another] = fill(queue, 'a', 1);
    expect(await refusalOf(queue.run(async () => 'x', { caller: 'a' }))).toBeInstanceOf(QueueFullError);
    running!.open();
    await running!.run;
    // Fairness is kept: the slot went straight to the next waiter, in arrival order.
    await tick();
    expect(staying!.started()).toBe(true);
    expect(another!.started()).toBe(false);
    staying!.open();
    another!.open();
    await Promise.all([staying!.run, another!.run]);
  });

  it('gives the place back when waiters are cleared', async () => {
    const queue = new BoundedQueue(4, { perCaller: SHARE });
    const [running] = fill(queue, 'b', 1);
    const waiting = fill(queue, 'a', 2);
    queue.clear(new Error('closing'));
    for (const job of waiting) await expect(job.run).rejects.toThrow('closing');
    const again = fill(queue, 'a', 2);
    expect(queue.waiting).toBe(2);
    for (const job of [running!, ...again]) job.open();
    await Promise.all([running!, ...again].map((job) => job.run));
  });

  it('holds no place for a job refused because the whole queue is full', async () => {
    const queue = new BoundedQueue(1, { perCaller: SHARE });
    const [running] = fill(queue, 'b', 1);
    const [waiting] = fill(queue, 'b', 1);
    // The queue is full: 'a' is refused, many times over, without using up its share.
    for (let i = 0; i < 3; i++) {
      const refused = await refusalOf(queue.run(async () => 'x', { caller: 'a' }));
      expect((refused as QueueFullError).message).toMatch(/^too many questions are waiting for an answer \(1\)/);
    }
    running!.open();
    await running!.run;
    waiting!.open();
    await waiting!.run;
    const mine = fill(queue, 'a', 2);
    expect(queue.waiting).toBe(1);
    for (const job of mine) job.open();
    await Promise.all(mine.map((job) => job.run));
  });

  it("tells a caller over its share to retry when its own first place frees, not when the whole queue has drained", async () => {
    let now = 0;
    const queue = new BoundedQueue(8, { clock: () => now, perCaller: SHARE });
    for (let i = 0; i < 2; i++) {
      await queue.run(async (slot) => {
        slot.served();
        now += 2_000;
      });
    }
    // 2 s a job: 'b' runs, 'c' waits twice, then 'a' twice, then 'b' once more.
    const jobs = [...fill(queue, 'b', 1), ...fill(queue, 'c', 2), ...fill(queue, 'a', 2), ...fill(queue, 'b', 1)];
    now += 500;
    const retryAfter = async (caller: string) => ((await refusalOf(queue.run(async () => 'x', { caller }))) as QueueFullError).retryAfterSeconds;
    // 1.5 s left of the running job, then 'c''s two and 'a''s first: 7.5 s. The whole queue would be 11.5 s.
    expect(await retryAfter('a')).toBe(8);
    expect(queue.retryAfterSeconds).toBe(12);
    // 'c''s first place frees after the running job and itself; 'b''s is the running job's.
    expect(await retryAfter('c')).toBe(4);
    expect(await retryAfter('b')).toBe(2);
    for (const job of jobs) job.open();
    await Promise.all(jobs.map((job) => job.run));
  });

  it('by default shares half the places, running and waiting, rounded up', () => {
    expect([1, 2, 3, 8].map(defaultPerCallerPlaces)).toEqual([1, 2, 2, 5]);
  });
});

describe('--llm-queue-per-client', () => {
  it('is unset by default (half the places), 0 for no limit, and bounded like its neighbours', () => {
    expect(loadConfig([], {}).llmQueuePerClient).toBeNull();
    expect(loadConfig([], { LLM_QUEUE_PER_CLIENT: '0' }).llmQueuePerClient).toBe(0);
    expect(loadConfig(['--llm-queue-per-client', '3'], {}).llmQueuePerClient).toBe(3);
    expect(() => loadConfig(['--llm-queue-per-client', '-1'], {})).toThrow(
      '--llm-queue-per-client / LLM_QUEUE_PER_CLIENT must be an integer between 0 and 10000, got "-1"',
    );
    expect(helpText()).toContain('--llm-queue-per-client / LLM_QUEUE_PER_CLIENT  (default: half of the queue, rounded up; 0 to 10000)');
  });

  /** The configured generator, its questions each reranking (in the slot) until the test lets them finish. */
  async function generatorWith(config: { llmQueueSize: number; llmQueuePerClient: number | null }) {
    const generator = await createGenerator({ llmModel: null, ...config } as Parameters<typeof createGenerator>[0]);
    const gates: (() => void)[] = [];
    const ask = (caller: string) =>
      generator.generate('place cells', () => new Promise<Context[]>((resolve) => gates.push(() => resolve([]))), { caller });
    /** Lets every question finish, one slot after the other. */
    const finish = async (questions: Promise<unknown>[]) => {
      let done = false;
      const all = Promise.all(questions).finally(() => (done = true));
      while (!done) {
        gates.splice(0).forEach((open) => open());
        await tick();
      }
      return all;
    };
    return { ask, finish };
  }

  it('holds one client of the configured generator to half the places by default, and to none with 0', async () => {
    // 3 waiting + 1 answered: 2 places each.
    const halved = await generatorWith({ llmQueueSize: 3, llmQueuePerClient: null });
    const held = [halved.ask('a'), halved.ask('a')];
    expect(await refusalOf(halved.ask('a'))).toMatchObject({ message: expect.stringMatching(/from this client: it holds its share of the queue \(2 places, --llm-queue-per-client\)/) });
    await halved.finish([...held, halved.ask('b')]);

    const open = await generatorWith({ llmQueueSize: 3, llmQueuePerClient: 0 });
    const all = [open.ask('a'), open.ask('a'), open.ask('a'), open.ask('a')];
    expect(await refusalOf(open.ask('a'))).toMatchObject({ message: expect.stringMatching(/^too many questions are waiting for an answer \(3\)/) });
    await open.finish(all);
  });
});
