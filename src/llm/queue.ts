/**
 * Serialises work on the single model context: one job runs, at most
 * `maxWaiting` wait, and anything beyond is refused at once with a
 * QueueFullError, so a burst of questions cannot pile up in memory.
 *
 * A job may name its caller (the client's key, see src/http/client-address.ts): one caller then holds
 * at most `perCaller` of the places (the running job and the waiting ones), and its next job is refused
 * with a QueueFullError naming its share while other callers are still admitted. Without that bound,
 * one client could hold every place and every other caller get 429. Jobs without a caller (the CLI,
 * eval, benchmarks) are bounded by the queue alone.
 */
import { performance } from 'node:perf_hooks';
import { QueueFullError } from './types.js';

interface Waiter {
  caller: string | undefined;
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

interface RunOptions {
  /** Leaves the queue (or ends the job, if it watches the signal); the promise rejects with its reason. */
  signal?: AbortSignal;
  /** Called once the job has a place (running or waiting), never for a refused one. */
  onAdmitted?: () => void;
  /** Whose job it is (the client's key): counted against the queue's per-caller share. None: no share applies. */
  caller?: string;
}

/** The bound on one caller's places, and the setting that sets it (named in the refusal). */
interface PerCallerShare {
  places: number;
  setting: string;
}

/**
 * The share one caller holds by default: half the places of a queue of `maxWaiting` (the running job
 * and the waiting ones), rounded up, as --max-in-flight-per-client is half of --max-in-flight. One client
 * still has most of an idle queue, and the rest is always left to other callers.
 */
export function defaultPerCallerPlaces(maxWaiting: number): number {
  return Math.ceil((maxWaiting + 1) / 2);
}

/** The share in force for a queue of `maxWaiting`: the setting's (0 = no bound), or unset, the default. */
export function perCallerPlaces(setting: number | null, maxWaiting: number): number {
  return setting ?? defaultPerCallerPlaces(maxWaiting);
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
  private runningCaller: string | undefined;
  /** Places held (running or waiting) by callers that hold any: an entry goes when its count reaches 0. */
  private readonly heldByCaller = new Map<string, number>();

  private readonly clock: () => number;
  private readonly waitingFor: string;
  private readonly perCaller: PerCallerShare | undefined;

  /**
   * `clock` gives milliseconds (tests pass their own); `waitingFor` names what waits, in the refusal
   * ("too many questions are waiting for an answer"); `perCaller` bounds the places of a job's caller
   * (none, or 0 places: no per-caller bound).
   */
  constructor(
    private readonly maxWaiting: number,
    {
      clock = () => performance.now(),
      waitingFor = 'questions are waiting for an answer',
      perCaller,
    }: { clock?: () => number; waitingFor?: string; perCaller?: PerCallerShare } = {},
  ) {
    this.clock = clock;
    this.waitingFor = waitingFor;
    this.perCaller = perCaller && perCaller.places > 0 ? perCaller : undefined;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Seconds until the questions present now have been served (see secondsUntilDone). */
  get retryAfterSeconds(): number {
    return this.secondsUntilDone(this.waiters.length);
  }

  async run<T>(job: (slot: Slot) => Promise<T>, { signal, onAdmitted, caller }: RunOptions = {}): Promise<T> {
    signal?.throwIfAborted();
    this.refuseOverShare(caller);
    if (this.busy && this.waiters.length >= this.maxWaiting) throw new QueueFullError(this.retryAfterSeconds, this.waiters.length, this.waitingFor);
    this.hold(caller);
    try {
      return await this.take(job, signal, onAdmitted, caller);
    } finally {
      // However the job left (done, failed, aborted while waiting, cleared): its place is given back.
      this.letGo(caller);
    }
  }

  /**
   * Seconds until the running job and the first `waitersAhead` waiting ones have been served, from
   * the measured service time: what remains of the running job plus one service time per waiting
   * one. Before any job has finished, the running job's elapsed time is the only measurement, and it
   * is expected to take as long again (a job seen running for a while is likely long): taking the time
   * so far as the whole would tell a client of the first answers to retry in a second, again and again.
   */
  private secondsUntilDone(waitersAhead: number): number {
    const elapsed = this.busy ? this.clock() - this.runningSince : 0;
    const serviceMs = this.durations.length > 0 ? this.durations.reduce((sum, d) => sum + d, 0) / this.durations.length : 2 * elapsed;
    const remainingMs = Math.max(serviceMs - elapsed, 0) + waitersAhead * serviceMs;
    return Math.max(1, Math.ceil(remainingMs / 1000));
  }

  /** A caller at its share is refused until its first place frees: when its running job, or its first waiting one, is done. */
  private refuseOverShare(caller: string | undefined): void {
    if (caller === undefined || this.perCaller === undefined) return;
    const held = this.heldBy(caller);
    if (held < this.perCaller.places) return;
    const firstWaiting = this.waiters.findIndex((waiter) => waiter.caller === caller);
    const retryAfter = this.busy && this.runningCaller === caller ? this.secondsUntilDone(0) : this.secondsUntilDone(firstWaiting + 1);
    throw new QueueFullError(retryAfter, held, this.waitingFor, this.perCaller.setting);
  }

  /** Places `caller` holds now, running or waiting. */
  private heldBy(caller: string): number {
    return this.heldByCaller.get(caller) ?? 0;
  }

  private hold(caller: string | undefined): void {
    if (caller !== undefined) this.heldByCaller.set(caller, this.heldBy(caller) + 1);
  }

  private letGo(caller: string | undefined): void {
    if (caller === undefined) return;
    const left = this.heldBy(caller) - 1;
    if (left === 0) this.heldByCaller.delete(caller);
    else this.heldByCaller.set(caller, left);
  }

  private async take<T>(
    job: (slot: Slot) => Promise<T>,
    signal: AbortSignal | undefined,
    onAdmitted: (() => void) | undefined,
    caller: string | undefined,
  ): Promise<T> {
    if (this.busy) {
      const turn = this.wait(signal, caller);
      onAdmitted?.();
      await turn;
    } else {
      onAdmitted?.();
    }
    this.busy = true;
    this.runningSince = this.clock();
    this.runningCaller = caller;
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

  private wait(signal: AbortSignal | undefined, caller: string | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        caller,
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
