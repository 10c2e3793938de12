/**
 * What `ingest` stopped by Ctrl-C or `kill` says before it ends: it had ended silently, its bar just
 * stopping. The state of the index is read, not assumed: every generation is published at once by the
 * manifest's atomic swap (docs/RELIABILITY.md), so an interrupted run leaves the index at the last
 * generation published, unchanged when its own was not yet. Its partial files and its write lock are
 * cleaned up or taken over by the next writer.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE } from './search/manifest.js';
import { STOPPING_SIGNALS, stopProgressBars } from './progress.js';

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

/**
 * Until the returned function is called, a stopping signal stops the progress bars, prints one line saying
 * the command was interrupted and what state the index is in, then ends the process as the signal would
 * (130 after Ctrl-C).
 */
export function reportInterruption(command: string, indexDir: string): () => void {
  const before = publishedGeneration(indexDir);
  const sayThenDie = (signal: NodeJS.Signals) => {
    stopReporting();
    stopProgressBars();
    process.stderr.write(`${command}: interrupted (${signal}); ${interruptedIndexState(indexDir, before, publishedGeneration(indexDir))}\n`);
    process.kill(process.pid, signal);
  };
  const stopReporting = () => {
    for (const signal of STOPPING_SIGNALS) process.off(signal, sayThenDie);
  };
  for (const signal of STOPPING_SIGNALS) process.on(signal, sayThenDie);
  return stopReporting;
}
