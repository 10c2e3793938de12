/**
 * A stopping signal that reaches `ingest` while it starts (its modules being loaded, the single executable's
 * carried files checked or written, its --delete-file files read: a pipe such as `<(psql ...)` may be slow),
 * before its run watches for one (src/index-write-interruption.ts). It had ended the process without a word.
 * Nothing of the index is written by then, so the process still ends at once, as the signal would (130 after
 * Ctrl-C, 143 after kill), after one line saying so.
 *
 * Watched from the moment the start decision says ingest is to run: main.ts watches before it loads the
 * command's modules, and the single executable's entry before it checks or writes the files it carries.
 * Only the start decision's own few modules load before (src/start-decision.ts).
 */
import { STOPPING_SIGNALS } from './stopping-signals.js';

function sayThenDie(signal: NodeJS.Signals): void {
  endStartWatch();
  process.stderr.write(`ingest: interrupted (${signal}) before writing anything to the index\n`);
  process.kill(process.pid, signal);
}

/** Called once the start decision says ingest is to run. */
export function watchIngestStart(): void {
  for (const signal of STOPPING_SIGNALS) process.on(signal, sayThenDie);
}

/** Called once the run watches for the signals itself. */
export function endStartWatch(): void {
  for (const signal of STOPPING_SIGNALS) process.off(signal, sayThenDie);
}
