/**
 * Serialises work on the single model context: one job runs, at most
 * `maxWaiting` wait, and anything beyond is refused at once with a
 * QueueFullError, so a burst of questions cannot pile up in memory.
 */
import { QueueFullError } from './types.js';

interface Waiter {
  start: () => void;
  cancel: (reason: unknown) => void;
}

// Weight of the newest job in the running average of job durations.
const SMOOTHING = 0.3;

export class BoundedQueue {
  private busy = false;
  private readonly waiters: Waiter[] = [];
  private averageMs: number;

  /** `initialEstimateMs` is the job duration assumed before any job has finished. */
  constructor(
    private readonly maxWaiting: number,
    initialEstimateMs = 10_000,
  ) {
    this.averageMs = initialEstimateMs;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Seconds until a queue slot is likely free: the running job plus everyone waiting. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(((this.waiters.length + 1) * this.averageMs) / 1000));
  }

  async run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.busy) {
      if (this.waiters.length >= this.maxWaiting) throw new QueueFullError(this.retryAfterSeconds, this.waiters.length);
      await this.wait(signal);
    }
    this.busy = true;
    const started = performance.now();
    try {
      return await job();
    } finally {
      this.averageMs = SMOOTHING * (performance.now() - started) + (1 - SMOOTHING) * this.averageMs;
      this.release();
    }
  }

  private wait(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        cancel: (reason) => {
          signal?.removeEventListener('abort', onAbort);
          reject(reason);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Hands the slot straight to the next waiter, so no newcomer can overtake it. */
  private release(): void {
    const next = this.waiters.shift();
    if (next) next.start();
    else this.busy = false;
  }

  /** Rejects everyone still waiting (on shutdown). */
  clear(reason: unknown): void {
    for (const waiter of this.waiters.splice(0)) waiter.cancel(reason);
  }
}
