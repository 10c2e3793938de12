/**
 * What `ingest` (and `serve` building the demo index on its first start) stopped by Ctrl-C or `kill` does
 * before it ends, rather than ending at once, silently, its bar just stopping, with its write lock and the
 * segments it wrote left for the next run to remove. The
 * signal stops the run at its next safe point (between records, before publishing, before and within a
 * merge: MergeOptions.signal; a segment being written is finished first), whose writer removes the files it
 * wrote for a generation it did not publish and gives back its lock, as on any failure; then one line says
 * the command was interrupted and what state the index is in, and the process ends as the signal would (130
 * after Ctrl-C). The writer removes only files of its own unpublished generation, never one the manifest names.
 *
 * The state of the index is read, not assumed: every generation is published at once by the manifest's
 * atomic swap (docs/RELIABILITY.md), so an interrupted run leaves the index at the last generation
 * published, unchanged when its own was not yet. A run that does not reach a safe point within
 * STOP_DEADLINE_MS, or a second signal, ends the process at once, leaving the clean-up to the next writer.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE } from './search/manifest.js';
import { stopProgressBars } from './progress.js';
import { STOP_DEADLINE_MS, STOPPING_SIGNALS } from './stopping-signals.js';

/** The generation the manifest names now, or null without a readable one. Synchronous: the process dies right after. */
function publishedGeneration(indexDir: string): number | null {
  try {
    const { generation } = JSON.parse(readFileSync(path.join(indexDir, MANIFEST_FILE), 'utf8')) as { generation?: unknown };
    return typeof generation === 'number' ? generation : null;
  } catch {
    return null;
  }
}

export function interruptedIndexState(indexDir: string, before: number | null, now: number | null): string {
  if (now === before) return before === null ? `no index was written to ${indexDir}` : `the index is unchanged (generation ${before})`;
  return `the index is at generation ${now ?? 'none'} (${before === null ? 'no index' : `generation ${before}`} when the run started)`;
}

export interface Interruption {
  /** Aborted at the first stopping signal: the run stops at its next safe point (IngestOptions.signal). */
  signal: AbortSignal;
  /** The run has ended (stopped or not): after a signal, says so and ends the process as the signal would. */
  end(): void;
}

/** Watches the stopping signals for a run of `command` writing into `indexDir`, until `end()`. */
export function watchInterruption(command: string, indexDir: string): Interruption {
  const before = publishedGeneration(indexDir);
  const controller = new AbortController();
  let received: NodeJS.Signals | null = null;
  let deadline: NodeJS.Timeout | undefined;
  const sayThenDie = (signal: NodeJS.Signals, leftBehind: boolean) => {
    stopWatching();
    clearTimeout(deadline);
    stopProgressBars();
    const left = leftBehind ? '; it stopped before removing its unpublished files and write lock, which the next run removes' : '';
    process.stderr.write(`${command}: interrupted (${signal}); ${interruptedIndexState(indexDir, before, publishedGeneration(indexDir))}${left}\n`);
    process.kill(process.pid, signal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal (Ctrl-C again) is not kept waiting.
    if (received !== null) return sayThenDie(received, true);
    received = signal;
    stopProgressBars();
    controller.abort(new Error(`${command} interrupted (${signal})`));
    deadline = setTimeout(() => sayThenDie(signal, true), STOP_DEADLINE_MS);
  };
  const stopWatching = () => {
    for (const signal of STOPPING_SIGNALS) process.off(signal, onSignal);
  };
  for (const signal of STOPPING_SIGNALS) process.on(signal, onSignal);
  return {
    signal: controller.signal,
    end() {
      if (received !== null) sayThenDie(received, false);
      stopWatching();
    },
  };
}
