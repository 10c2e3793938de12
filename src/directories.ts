/**
 * `mkdir -p` that fails where Node 20's own one spins: `mkdir(dir, { recursive: true })`
 * retries forever when creating a directory reports ENOENT although its parent exists
 * (any path under /proc/self, say), and it reports ENOENT instead of EROFS under a
 * read-only mount. Here each missing directory is made once, so the error is the
 * kernel's own, naming the directory that could not be made.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Makes `dir` and its missing parents; gives the directories it made, deepest first (none made meanwhile by another process). */
export function makeDirectories(dir: string): string[] {
  const missing: string[] = [];
  let existing = path.resolve(dir);
  let found = statSync(existing, { throwIfNoEntry: false });
  while (found === undefined) {
    missing.push(existing);
    existing = path.dirname(existing);
    found = statSync(existing, { throwIfNoEntry: false });
  }
  if (!found.isDirectory()) {
    throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${existing}'`), { code: 'ENOTDIR', path: existing });
  }
  const made: string[] = [];
  for (const directory of missing.reverse()) {
    try {
      mkdirSync(directory);
      made.unshift(directory);
    } catch (error) {
      // Made meanwhile by another process: what was wanted.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return made;
}

/** Codes of a write refused by the system, as names or as the bare numbers of native libraries (LMDB): EPERM, EACCES, EROFS. */
const REFUSED_WRITE = new Set<unknown>(['EPERM', 'EACCES', 'EROFS', 1, 13, 30]);

/**
 * `error`, or one naming `what` at `dir` and what to check, when the system refused to write there. Otherwise a start
 * says only "EPERM: operation not permitted, rmdir '…/files/tmp'", or of the store "Operation not permitted: Attempting to
 * open main database file", naming no file.
 */
export function unwritableOr(error: unknown, what: string, dir: string): unknown {
  if (!REFUSED_WRITE.has((error as { code?: unknown } | null)?.code)) return error;
  return new Error(
    `cannot write ${what} ${dir} (${(error as Error).message}): the server's user must be able to write there; check the owner and permissions, ` +
      'immutable flags (lsattr) and read-only mounts',
    { cause: error },
  );
}
