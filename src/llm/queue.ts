/**
 * Serialises work on the single model context: one job runs, at most
 * `maxWaiting` wait, and anything beyond is refused at once with a
 * QueueFullError, so a burst of questions cannot pile up in memory.
 */
import { performance } from 'node:perf_hooks';
import { QueueFullError } from './types.js';

interface Waiter {
  start: () => void;
  cancel: (reason: unknown) => void;
}

/** What a job is told while it holds the slot. */
export interface Slot {
  /**
   * Marks the job's time in the slot as a service-time sample: it did the work a waiting
   * question waits for (ran the model). Jobs that never mark it (answered without the model,
   * refused before running it) or that end cancelled would make the estimate look shorter
   * than a real answer takes.
   */
  served(): void;
}

export interface RunOptions {
  /** Leaves the queue (or ends the job, if it watches the signal); the promise rejects with its reason. */
  signal?: AbortSignal;
  /** Called once the job has a place (running or waiting), never for a refused one. */
  onAdmitted?: () => void;
}

// Finished jobs whose durations make the service-time estimate: enough to smooth one odd question,
// few enough to follow a change of load (longer questions, another model).
const SAMPLES = 8;

export class BoundedQueue {
  private busy = false;
  private readonly waiters: Waiter[] = [];
  /** Durations of the latest finished jobs that were served (see Slot), oldest first. */
  private readonly durations: number[] = [];
  private runningSince = 0;

  private readonly clock: () => number;
  private readonly waitingFor: string;

  /**
   * `clock` gives milliseconds (tests pass their own); `waitingFor` names what waits, in the refusal
   * ("too many questions are waiting for an answer").
   */
  constructor(
    private readonly maxWaiting: number,
    { clock = () => performance.now(), waitingFor = 'questions are waiting for an answer' }: { clock?: () => number; waitingFor?: string } = {},
  ) {
    this.clock = clock;
    this.waitingFor = waitingFor;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Seconds until the questions present now have been served, from the
   * measured service time: what remains of the running job plus one service
   * time per waiting question. Before any job has finished, the running job's
   * elapsed time is the only measurement (it has taken at least that long).
   */
  get retryAfterSeconds(): number {
    const elapsed = this.busy ? this.clock() - this.runningSince : 0;
    const serviceMs = this.durations.length > 0 ? this.durations.reduce((sum, d) => sum + d, 0) / this.durations.length : elapsed;
    const remainingMs = Math.max(serviceMs - elapsed, 0) + this.waiters.length * serviceMs;
    return Math.max(1, Math.ceil(remainingMs / 1000));
  }

  async run<T>(job: (slot: Slot) => Promise<T>, { signal, onAdmitted }: RunOptions = {}): Promise<T> {
    signal?.throwIfAborted();
    if (this.busy) {
      if (this.waiters.length >= this.maxWaiting) throw new QueueFullError(this.retryAfterSeconds, this.waiters.length, this.waitingFor);
      const turn = this.wait(signal);
      onAdmitted?.();
      await turn;
    } else {
      onAdmitted?.();
    }
    this.busy = true;
    this.runningSince = this.clock();
    let served = false;
    try {
      return await job({ served: () => (served = true) });
    } finally {
      if (served && !signal?.aborted) this.record(this.clock() - this.runningSince);
      this.release();
    }
  }

  private record(durationMs: number): void {
    this.durations.push(durationMs);
    if (this.durations.length > SAMPLES) this.durations.shift();
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
