/**
 * The render threads' queue, fair between callers. Callers take turns in
 * rounds: a caller's jobs are numbered into consecutive rounds, the first no
 * earlier than the round of the job started last, and a freed thread starts
 * the job of the lowest round (the first asked for, among equals). So one
 * caller's many jobs (an archive download of heavy entries, several downloads
 * at once) cannot hold back another's: a job waits at most for the jobs
 * running now and one job of each other caller, however many they queued;
 * and each caller's jobs start in the order it asked for them. Once nothing
 * runs or waits, the rounds taken before are forgotten.
 */
import type { Identity } from './identities.js';

/** Whom a render job is done for: jobs with the same key share one turn per round. */
export type RenderCaller = string;

interface FairQueue {
  /** Starts `job` when its round comes and a slot is free; settles as the job does. */
  run<T>(caller: RenderCaller, job: () => Promise<T>): Promise<T>;
}

interface Queued {
  round: number;
  /** Order of asking, between jobs of one round. */
  asked: number;
  start: () => void;
}

interface Turns {
  /** The round of this caller's next job, unless the rounds have moved past it. */
  nextRound: number;
  waiting: Queued[];
}

export function fairQueue(slots: number): FairQueue {
  const callers = new Map<RenderCaller, Turns>();
  let running = 0;
  let asked = 0;
  // The round of the job started last: jobs asked for now wait no later than it.
  let round = 0;

  const startNext = () => {
    while (running < slots) {
      let next: Turns | undefined;
      for (const [caller, turns] of callers) {
        const head = turns.waiting[0];
        // A caller with nothing waiting and no round ahead of the current one would be numbered the same if forgotten.
        if (head === undefined) {
          if (turns.nextRound <= round) callers.delete(caller);
        } else if (next === undefined || comesBefore(head, next.waiting[0]!)) {
          next = turns;
        }
      }
      if (next === undefined) {
        // Drained: turns taken before give no caller a later place in what comes next.
        if (running === 0) callers.clear();
        return;
      }
      const job = next.waiting.shift()!;
      round = job.round;
      running++;
      job.start();
    }
  };

  return {
    run: (caller, job) =>
      new Promise((resolve, reject) => {
        let turns = callers.get(caller);
        if (turns === undefined) {
          turns = { nextRound: round, waiting: [] };
          callers.set(caller, turns);
        }
        const jobRound = Math.max(turns.nextRound, round);
        turns.nextRound = jobRound + 1;
        const start = () =>
          void Promise.resolve()
            .then(job)
            .then(resolve, reject)
            .finally(() => {
              running--;
              startNext();
            });
        turns.waiting.push({ round: jobRound, asked: asked++, start });
        startNext();
      }),
  };
}

function comesBefore(job: Queued, other: Queued): boolean {
  return job.round < other.round || (job.round === other.round && job.asked < other.asked);
}

/** Jobs that name no caller (set-up, callers not yet passing one) share this turn. */
export const UNATTRIBUTED: RenderCaller = '';

/**
 * The turn of a caller: a user by realm and subject; anonymous callers by their client key (clientKey of
 * the address, so that one cannot take a turn per address of its /64), all one turn when it is not known.
 */
export function renderCallerOf(identity: Identity, client = ''): RenderCaller {
  const { subject } = identity;
  return subject.type === 'User' ? JSON.stringify(['user', subject.realm, subject.subject]) : JSON.stringify(['anonymous', client]);
}
