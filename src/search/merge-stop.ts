/**
 * Where a merge's long synchronous stretches (copying the stored fragments, merging the postings) may be
 * stopped. A process hears a signal only when its event loop turns, so a Ctrl-C in such a stretch would
 * abort nothing until it ended (half a minute at 1M paragraphs): each stopping point gives the loop a turn.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Gives the event loop a turn (a stopping signal's handler may abort `signal` then), then rejects with its reason if aborted. */
export async function stopIfAborted(signal: AbortSignal): Promise<void> {
  await nextTurn();
  signal.throwIfAborted();
}
