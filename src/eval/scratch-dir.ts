/**
 * The scratch index of `eval --corpus`: a temporary directory removed however the run ends. A `finally`
 * does not run when a signal ends the process, and Ctrl-C while the corpus was indexed had left it in the
 * temporary directory.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { STOPPING_SIGNALS } from '../stopping-signals.js';

export async function withScratchDir<T>(prefix: string, run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  // Removed at once (synchronously: nothing else runs first), then the signal does what it would have,
  // so the process ends as the signal ends it (130 after Ctrl-C) and other listeners (the progress bar's) run too.
  const removeThenDie = (signal: NodeJS.Signals) => {
    stopWatching();
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      process.stderr.write(`warning: could not remove the scratch directory ${dir}: ${(error as Error).message}\n`);
    }
    process.kill(process.pid, signal);
  };
  const stopWatching = () => {
    for (const signal of STOPPING_SIGNALS) process.off(signal, removeThenDie);
  };
  for (const signal of STOPPING_SIGNALS) process.on(signal, removeThenDie);
  try {
    return await run(dir);
  } finally {
    stopWatching();
    await rm(dir, { recursive: true, force: true });
  }
}
