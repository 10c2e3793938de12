/**
 * A stopping signal that reaches `ingest` while it starts (its modules being evaluated, its start decided, its
 * --delete-file files read: a pipe such as `<(psql ...)` may be slow), before its run watches for one
 * (src/ingest-interruption.ts). It had ended the process without a word. Nothing of the index is written by
 * then, so the process still ends at once, as the signal would (130 after Ctrl-C, 143 after kill), after one
 * line saying so.
 *
 * main.ts, and the single executable's entry (before it checks or writes the files it carries), import this
 * module first, for its side effect: the watch is set as this module is evaluated, before the modules imported
 * after it are. (Run from the TypeScript sources, every module is loaded and compiled before any is evaluated,
 * which no module can watch.)
 */
import { STOPPING_SIGNALS } from './progress.js';

function sayThenDie(signal: NodeJS.Signals): void {
  endStartWatch();
  process.stderr.write(`ingest: interrupted (${signal}) before writing anything to the index\n`);
  process.kill(process.pid, signal);
}

/** Called once the run watches for the signals itself. */
export function endStartWatch(): void {
  for (const signal of STOPPING_SIGNALS) process.off(signal, sayThenDie);
}

/**
 * The command: the first argument (src/start-decision.ts), after any --cache-dir before it, which the single
 * executable's entry takes out of the arguments anywhere, but only once this module has been evaluated.
 */
function commandOf(args: readonly string[]): string | undefined {
  let at = 0;
  while (args[at] === '--cache-dir' || args[at]?.startsWith('--cache-dir=')) at += args[at] === '--cache-dir' ? 2 : 1;
  return args[at];
}

// Only ingest says what a signal left.
if (commandOf(process.argv.slice(2)) === 'ingest') for (const signal of STOPPING_SIGNALS) process.on(signal, sayThenDie);
