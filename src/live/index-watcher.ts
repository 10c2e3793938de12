/**
 * Notices a newly published index generation: a watch on the index directory
 * (the manifest is replaced by a rename, so the directory is watched, not the
 * file) answers within milliseconds where the platform delivers events, and a
 * periodic check bounds the delay everywhere else (network file systems,
 * containers without inotify, a missed event).
 *
 * A watch follows a directory, not its path: once the index directory is
 * moved away or removed and another put in its place (`mv rebuilt index`), it
 * would report only on the old one. So the parent directory is watched for
 * the index directory's name too, and each check compares the directory the
 * path names (device and inode) with the one watched, watching the new one
 * when they differ.
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { MANIFEST_FILE } from '../search/manifest.js';
import { GenerationLoadError, type LiveIndex, type LiveIndexLog } from './live-index.js';

/** The events of one publish (temporary file, rename) arrive in a burst: one reload for all of them. */
const COALESCE_MS = 50;

/** Starts watching; returns the function that stops it. */
export function watchIndex(index: LiveIndex, pollIntervalMs: number, log: LiveIndexLog): () => void {
  let stopped = false;
  let lastFailure: string | null = null;
  const reload = () => {
    index.reload().then(
      () => (lastFailure = null),
      (error: Error) => {
        // A broken publish would otherwise be logged at every check: once per failure and published generation.
        const published = error instanceof GenerationLoadError ? error.generation : null;
        const failure = `${published}: ${error.message}`;
        if (failure !== lastFailure) {
          log.warn({ err: error, generation: index.current.generation, publishedGeneration: published }, 'index reload failed; still serving the previous generation');
        }
        lastFailure = failure;
      },
    );
  };

  let directoryWatch: FSWatcher | null = null;
  let watchedIdentity: string | null = null;
  const watchDirectory = (identity: string | null) => {
    directoryWatch?.close();
    directoryWatch = null;
    watchedIdentity = identity;
    try {
      directoryWatch = watch(index.dir, { persistent: false }, (_event, file) => {
        if (file === null || file === MANIFEST_FILE) soon();
      });
      directoryWatch.on('error', (error) => log.warn({ err: error }, 'index directory watch failed; relying on the periodic check'));
    } catch (error) {
      log.warn({ err: error }, 'cannot watch the index directory; relying on the periodic check');
    }
  };
  const check = async () => {
    const identity = await directoryIdentity(index.dir);
    // Stopped meanwhile: the index may be closing, and must neither be watched nor load a generation any more.
    if (stopped) return;
    // The path names another directory: watch that one. Missing for a moment (removed, its replacement not yet
    // moved in): the parent's watch reports the arrival. Unreadable: the reload fails too, and says why.
    if (identity !== null && identity !== watchedIdentity) watchDirectory(identity);
    reload();
  };

  let pending: NodeJS.Timeout | null = null;
  const soon = () => {
    pending ??= setTimeout(() => {
      pending = null;
      void check();
    }, COALESCE_MS);
  };

  let parentWatch: FSWatcher | null = null;
  try {
    const name = path.basename(index.dir);
    parentWatch = watch(path.dirname(index.dir), { persistent: false }, (_event, file) => {
      if (file === null || file === name) soon();
    });
    parentWatch.on('error', (error) => log.warn({ err: error }, 'watch of the index directory\'s parent failed; a replaced index directory is noticed by the periodic check'));
  } catch (error) {
    log.warn({ err: error }, 'cannot watch the index directory\'s parent; a replaced index directory is noticed by the periodic check');
  }
  // Which directory this first watch follows is not known: the first check watches again, knowing it.
  watchDirectory(null);
  const poll = setInterval(() => void check(), pollIntervalMs);
  poll.unref();
  return () => {
    stopped = true;
    directoryWatch?.close();
    parentWatch?.close();
    clearInterval(poll);
    if (pending) clearTimeout(pending);
  };
}

/** Device and inode of the directory `dir` names, or null when it cannot be read. */
async function directoryIdentity(dir: string): Promise<string | null> {
  return stat(dir).then(({ dev, ino }) => `${dev}:${ino}`, () => null);
}
