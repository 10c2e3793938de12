/**
 * Progress output for long jobs: a bar on an interactive terminal. Elsewhere
 * (logs, CI) a step prints once per quarter it crosses, and only when it has
 * run long enough for that to help: a short step leaves just its caller's
 * summary line. With `quiet` (--quiet) nothing at all.
 *
 * A step counted in bytes shows them (MiB), one counted in items a user knows (paragraphs)
 * their number; one counted in `steps` (a writer's or a merge's internal units, which mean
 * nothing to a user) shows its percentage only.
 */
import { SingleBar, Presets } from 'cli-progress';
import { STOPPING_SIGNALS } from './stopping-signals.js';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

interface ProgressOutput {
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Milliseconds; tests pass their own clock. */
  now?: () => number;
  /** No output at all (--quiet): the caller's summary, warnings and errors are the only lines. */
  quiet?: boolean;
}

const SILENT: Progress = { update() {}, stop() {} };

// A step shorter than this prints no progress lines off a terminal.
const SHORT_STEP_MS = 10_000;
const QUARTERS = [25, 50, 75];
/** The stop() of every bar on the terminal now. */
const barsShown = new Set<() => void>();

/** Stops every bar shown, so that a line written next (a command saying it was interrupted) starts on a line of its own. */
export function stopProgressBars(): void {
  for (const stop of [...barsShown]) stop();
}

export function createProgress(label: string, unit: 'bytes' | 'items' | 'steps' = 'bytes', output: ProgressOutput = {}): Progress {
  const format = (n: number) => (unit === 'bytes' ? `${(n / 1048576).toFixed(1)} MiB` : String(n));
  const counted = unit !== 'steps';
  const stream = output.stream ?? process.stderr;
  const now = output.now ?? Date.now;
  if (output.quiet) return SILENT;
  if (stream.isTTY) {
    const bar = new SingleBar(
      { format: `${label} [{bar}] {percentage}% | ${counted ? '{doneText} / {totalText} | ' : ''}ETA {eta}s`, stream, hideCursor: true },
      Presets.shades_classic,
    );
    let started = false;
    // The bar hides the cursor and turns line wrapping off until it stops: a job ended by Ctrl-C or
    // `kill` would leave the terminal that way. The bar stops first, then the signal does what it would have,
    // unless another listener is left to act on it (an interrupted ingest first removes what it wrote).
    const stopThenDie = (signal: NodeJS.Signals) => {
      stop();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    const stop = () => {
      for (const signal of STOPPING_SIGNALS) process.off(signal, stopThenDie);
      barsShown.delete(stop);
      if (started) bar.stop();
      started = false;
    };
    return {
      update(done, total) {
        const payload = { doneText: format(done), totalText: format(total) };
        if (!started) {
          bar.start(total, done, payload);
          started = true;
          barsShown.add(stop);
          for (const signal of STOPPING_SIGNALS) process.once(signal, stopThenDie);
        } else bar.update(done, payload);
      },
      stop,
    };
  }
  const started = now();
  let printedQuarters = 0;
  return {
    update(done, total) {
      const percent = total > 0 ? (100 * done) / total : 100;
      let crossed = printedQuarters;
      while (crossed < QUARTERS.length && percent >= QUARTERS[crossed]!) crossed++;
      if (crossed === printedQuarters || now() - started < SHORT_STEP_MS) return;
      printedQuarters = crossed;
      // The share reached, not the quarter crossed: a step that passes SHORT_STEP_MS late is further on.
      stream.write(`${label}: ${Math.floor(percent)}%${counted ? ` (${format(done)} / ${format(total)})` : ''}\n`);
    },
    stop() {},
  };
}
