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
