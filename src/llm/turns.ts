/**
 * Long synchronous work cut into turns of the event loop. Composing an answer over long paragraphs
 * is pure CPU (40 to 150 ms for five of 100,000 characters, seconds for longer ones); run in one go, it held
 * every other request of the server (health probes, searches, downloads) until it was done.
 */

/** Work written as a generator function: each bare `yield` is a point where it may pause; it returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Work that ran this long gives the event loop a turn at its next pause point. */
export const TURN_MS = 10;

/** Lets every callback that is due (timers, I/O, other requests) run before going on. */
export function giveTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs the work to its end without pausing (small inputs, and callers that need a value at once). */
export function finishNow<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs the work to its end, giving the event loop a turn at the first pause point after each TURN_MS of it. */
export async function finishInTurns<T>(steps: Steps<T>): Promise<T> {
  let turnStarted = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - turnStarted >= TURN_MS) {
      await giveTurn();
      turnStarted = performance.now();
    }
  }
}
