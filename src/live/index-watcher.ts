/**
 * Notices a newly published index generation: a watch on the index directory
 * (the manifest is replaced by a rename, so the directory is watched, not the
 * file) answers within milliseconds where the platform delivers events, and a
 * periodic check bounds the delay everywhere else (network file systems,
 * containers without inotify, a missed event).
 */
import { watch, type FSWatcher } from 'node:fs';
import { MANIFEST_FILE } from '../search/manifest.js';
import type { LiveIndex, LiveIndexLog } from './live-index.js';

/** The events of one publish (temporary file, rename) arrive in a burst: one reload for all of them. */
const COALESCE_MS = 50;

/** Starts watching; returns the function that stops it. */
export function watchIndex(index: LiveIndex, pollIntervalMs: number, log: LiveIndexLog): () => void {
  let lastFailure = '';
  const check = () => {
    index.reload().then(
      () => (lastFailure = ''),
      (error: Error) => {
        // A broken publish would otherwise be logged at every check: once per distinct failure.
        if (error.message !== lastFailure) log.warn({ err: error, generation: index.current.generation }, 'index reload failed; still serving the previous generation');
        lastFailure = error.message;
      },
    );
  };
  let pending: NodeJS.Timeout | null = null;
  const soon = () => {
    pending ??= setTimeout(() => {
      pending = null;
      check();
    }, COALESCE_MS);
  };

  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(index.dir, { persistent: false }, (_event, file) => {
      if (file === null || file === MANIFEST_FILE) soon();
    });
    watcher.on('error', (error) => log.warn({ err: error }, 'index directory watch failed; relying on the periodic check'));
  } catch (error) {
    log.warn({ err: error }, 'cannot watch the index directory; relying on the periodic check');
  }
  const poll = setInterval(check, pollIntervalMs);
  poll.unref();
  return () => {
    watcher?.close();
    clearInterval(poll);
    if (pending) clearTimeout(pending);
  };
}
