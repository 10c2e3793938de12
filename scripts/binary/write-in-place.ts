/**
 * The last steps of the build copy Node's binary and inject the server into the copy (postject rewrites
 * it in place): written under the executable's own name, a build failing or interrupted between them had
 * left a file that looked like the executable and was not one, in place of the last good build's.
 */
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';

/** Where `target` is written before it is complete: beside it, so that the rename stays on one file system. */
export const partialPathOf = (target: string) => path.join(path.dirname(target), `.${path.basename(target)}.partial`);

/**
 * Makes `target` by `write(partial)` on a file beside it, renamed over `target` only once `write` returns.
 * A failing `write` leaves `target` as it was (an earlier build's, or none) and its partial file removed;
 * a build killed midway leaves the partial file, which the next build starts by removing.
 */
export function writeInPlace(target: string, write: (partial: string) => void): void {
  const partial = partialPathOf(target);
  rmSync(partial, { force: true });
  try {
    write(partial);
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}
