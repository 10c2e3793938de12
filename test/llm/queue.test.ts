import { describe, expect, it } from 'vitest';
import { BoundedQueue } from '../../src/llm/queue.js';
import { QueueFullError } from '../../src/llm/types.js';

/** A job that finishes when the test says so, recording when it started. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    job: async () => {
      log.push(`start ${name}`);
      await opened;
      log.push(`end ${name}`);
      return name;
    },
    open: () => open(),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('BoundedQueue', () => {
  it('runs one job at a time, in arrival order', async () => {
    const log: string[] = [];
    const queue = new BoundedQueue(5);
    const [a, b, c] = [gate(log, 'a'), gate(log, 'b'), gate(log, 'c')];
    const runs = [queue.run(a.job), queue.run(b.job), queue.run(c.job)];
    await tick();
    expect(log).toEqual(['start a']);
    expect(queue.waiting).toBe(2);
    b.open();
    c.open();
    a.open();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('refuses at once beyond the waiting limit; before any job finished, the running job is expected to take as long again', async () => {
    const log: string[] = [];
    let now = 0;
    const queue = new BoundedQueue(1, { clock: () => now });
    const a = gate(log, 'a');
    const first = queue.run(a.job);
    now = 3_000;
    const second = queue.run(async () => 'b');
    const third = queue.run(async () => 'c');
    await expect(third).rejects.toBeInstanceOf(QueueFullError);
    // Nothing finished yet: the running question has taken 3 s, so 3 s more are expected of it, and 6 s of the one waiting.
    await expect(third).rejects.toMatchObject({ retryAfterSeconds: 9 });
    a.open();
    expect(await Promise.all([first, second])).toEqual(['a', 'b']);
    expect(await queue.run(async () => 'after')).toBe('after');
  });

  it('computes Retry-After from the measured service time, not a fixed guess', async () => {
    let now = 0;
    const queue = new BoundedQueue(4, { clock: () => now });
    // Three questions of 2 s each that ran the model.
    for (let i = 0; i < 3; i++) {
      await queue.run(async (slot) => {
        slot.served();
        now += 2_000;
      });
    }
    const log: string[] = [];
    const a = gate(log, 'a');
    const running = queue.run(a.job);
    now += 500;
    const waiting = [1, 2, 3, 4].map((i) => queue.run(async () => i));
    const refusal: QueueFullError = await queue.run(async () => 5).catch((e) => e);
    expect(refusal).toBeInstanceOf(QueueFullError);
    // 1.5 s left of the running question + 4 waiting x 2 s = 9.5 s.
    expect(refusal.retryAfterSeconds).toBe(10);
    a.open();
    await Promise.all([running, ...waiting]);
  });

  it('estimates only from jobs that ran the model: not from those answered without it, nor from cancelled ones', async () => {
    let now = 0;
    const queue = new BoundedQueue(1, { clock: () => now });
    for (let i = 0; i < 2; i++) {
      await queue.run(async (slot) => {
        slot.served();
        now += 4_000;
      });
    }
    // Answered without the model (no context fitted, say): a few milliseconds in the slot.
    for (let i = 0; i < 6; i++) {
      await queue.run(async () => {
        now += 5;
      });
    }
    // Cancelled before the model ran, and cancelled while it ran: neither took a whole answer's time.
    for (const runsModel of [false, true]) {
      const controller = new AbortController();
      const cancelled = queue.run(
        async (slot) => {
          if (runsModel) slot.served();
          now += 100;
          controller.abort(new Error('gone'));
          throw controller.signal.reason;
        },
        { signal: controller.signal },
      );
      await expect(cancelled).rejects.toThrow('gone');
    }
    const log: string[] = [];
    const a = gate(log, 'a');
    const running = queue.run(a.job);
    now += 1_000;
    const waiting = queue.run(async () => 'b');
    const refusal: QueueFullError = await queue.run(async () => 'c').catch((e) => e);
    // 3 s left of the running question + 1 waiting x 4 s = 7 s; counting the other jobs it would say 1.
    expect(refusal.retryAfterSeconds).toBe(7);
    a.open();
    await Promise.all([running, waiting]);
  });

  it('tells a job when it has a place, running or waiting, and a refused one never', async () => {
    const log: string[] = [];
    const queue = new BoundedQueue(1);
    const a = gate(log, 'a');
    const admitted: string[] = [];
    const first = queue.run(a.job, { onAdmitted: () => admitted.push('a') });
    const second = queue.run(async () => 'b', { onAdmitted: () => admitted.push('b') });
    const refused = queue.run(async () => 'c', { onAdmitted: () => admitted.push('c') });
    await expect(refused).rejects.toBeInstanceOf(QueueFullError);
    expect(admitted).toEqual(['a', 'b']);
    expect(log).toEqual(['start a']);
    a.open();
    expect(await Promise.all([first, second])).toEqual(['a', 'b']);
  });

  it('lets a waiting job leave when its signal aborts, and the next one moves up', async () => {
    const log: string[] = [];
    const queue = new BoundedQueue(2);
    const a = gate(log, 'a');
    const controller = new AbortController();
    const first = queue.run(a.job);
    const leaving = queue.run(async () => 'never', { signal: controller.signal });
    const staying = queue.run(async () => 'c');
    controller.abort(new Error('gone'));
    await expect(leaving).rejects.toThrow('gone');
    expect(queue.waiting).toBe(1);
    a.open();
    expect(await Promise.all([first, staying])).toEqual(['a', 'c']);
  });

  it('frees the slot when a job fails', async () => {
    const queue = new BoundedQueue(1);
    await expect(queue.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run(async () => 'ok')).toBe('ok');
  });

  it('rejects the waiting jobs on clear', async () => {
    const log: string[] = [];
    const queue = new BoundedQueue(3);
    const a = gate(log, 'a');
    const first = queue.run(a.job);
    const waiting = queue.run(async () => 'b');
    queue.clear(new Error('closing'));
    await expect(waiting).rejects.toThrow('closing');
    a.open();
    await first;
  });
});
