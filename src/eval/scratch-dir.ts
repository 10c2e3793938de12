/**
 * The scratch index of `eval --corpus`: a temporary directory removed however the run ends. A `finally`
 * does not run when a signal ends the process, so Ctrl-C while the corpus is indexed would otherwise leave it
 * in the temporary directory.
 *
 * At a stopping signal the run is told to stop (its ingestion stops at its next safe point, as an
 * interrupted `ingest` does), then the directory is removed, one line says so, and the process ends as the
 * signal would. The run stops first: removing the directory while the ingestion still writes would leave, now
 * and then, a directory the writer fills again (`manifest.json.tmp-<pid>`). A run that has not stopped within
 * STOP_DEADLINE_MS (the evaluation itself takes no signal), or a second signal, has it removed at once.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { STOP_DEADLINE_MS, STOPPING_SIGNALS } from '../stopping-signals.js';

export async function withScratchDir<T>(prefix: string, run: (dir: string, signal: AbortSignal) => Promise<T>): Promise<T> {
  // The system's words alone ("ENOENT: no such file or directory, mkdtemp '/nowhere/litserve-eval-XXXXXX'") named no setting.
  const dir = await mkdtemp(path.join(tmpdir(), prefix)).catch((error: Error) => {
    throw new Error(`cannot make a scratch folder for the index in ${tmpdir()} (the temporary directory: TMPDIR): ${error.message}`, { cause: error });
  });
  const controller = new AbortController();
  let received: NodeJS.Signals | null = null;
  let deadline: NodeJS.Timeout | undefined;
  // Removed synchronously (nothing else runs first), then the signal does what it would have, so the process
  // ends as the signal ends it (130 after Ctrl-C) and other listeners (the progress bar's) run too.
  const removeThenDie = (signal: NodeJS.Signals) => {
    stopWatching();
    clearTimeout(deadline);
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      process.stderr.write(`eval: interrupted (${signal}); its scratch index ${dir} was removed\n`);
    } catch (error) {
      process.stderr.write(`eval: interrupted (${signal}); could not remove its scratch index ${dir}: ${(error as Error).message}\n`);
    }
    process.kill(process.pid, signal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal (Ctrl-C again) is not kept waiting.
    if (received !== null) return removeThenDie(received);
    received = signal;
    controller.abort(new Error(`eval interrupted (${signal})`));
    deadline = setTimeout(() => removeThenDie(signal), STOP_DEADLINE_MS);
  };
  const stopWatching = () => {
    for (const signal of STOPPING_SIGNALS) process.off(signal, onSignal);
  };
  for (const signal of STOPPING_SIGNALS) process.on(signal, onSignal);
  try {
    return await run(dir, controller.signal);
  } finally {
    if (received !== null) {
      removeThenDie(received);
      // The signal ends the process: what the stopped run threw is not reported as a failure meanwhile.
      await new Promise(() => setTimeout(() => undefined, STOP_DEADLINE_MS));
    }
    stopWatching();
    await rm(dir, { recursive: true, force: true });
  }
}
