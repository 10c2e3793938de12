/** Turning the paths given on a command line into the files to read. */
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { NotAnInputError, notAnInput } from './input.js';

/** Told of each entry of an input directory that is skipped (a dangling link, no permission, a link out of the directory, a pipe), and why. */
export type OnUnreadable = (file: string, message: string) => void;

/**
 * Yields each path that is a file, and the files under each directory
 * (recursively, in sorted order, skipping hidden files and directories such
 * as .DS_Store or .git). A path given that does not exist is an error, not an
 * empty input: it is almost always a typo; so is one that is no regular file
 * (a pipe, a device, a pseudo-file of /proc or /sys): readers open a file more
 * than once and read it at positions, and a pseudo-file may never end.
 *
 * A path given may be a link to anywhere: the operator chose it. Inside a
 * directory, a link is followed only to a place inside that directory's real
 * path, so a folder of papers holding a link to /proc/kmsg or to someone's
 * home does not read it; an entry that cannot be read or is no regular file
 * is reported and skipped, and a directory is walked once however many links
 * lead to it (a link to an ancestor would loop).
 */
export async function* expandInputs(paths: string[], onUnreadable: OnUnreadable = () => undefined): AsyncIterable<string> {
  const walked = new Set<string>();
  for (const input of paths) {
    const info = await stat(input).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new Error(`Input path does not exist: ${input}`);
      throw error;
    });
    // A pipe's path (/dev/stdin) resolves to no real path; its type alone refuses it.
    const real = info.isFile() || info.isDirectory() ? await realpath(input) : input;
    const problem = notAnInput(info, real);
    if (problem !== null) throw new NotAnInputError(input, problem);
    if (info.isDirectory()) yield* filesUnder(input, real, walked, onUnreadable);
    else yield input;
  }
}

async function* filesUnder(directory: string, root: string, walked: Set<string>, onUnreadable: OnUnreadable): AsyncGenerator<string> {
  const real = await realpath(directory);
  if (walked.has(real)) return;
  walked.add(real);
  const entries = await readdir(directory, { withFileTypes: true });
  const visible = entries
    .filter((entry) => !entry.name.startsWith('.'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of visible) {
    const full = path.join(directory, entry.name);
    let info;
    let target = path.join(real, entry.name);
    try {
      if (entry.isSymbolicLink()) {
        target = await realpath(full);
        if (!isWithin(target, root)) {
          onUnreadable(full, `a link to ${target}, outside the input directory: skipped (to read it, give ${target} as an --input itself)`);
          continue;
        }
      }
      // stat follows a link, so a link to a directory is descended into.
      info = entry.isSymbolicLink() ? await stat(full) : entry;
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      onUnreadable(full, code === 'ENOENT' ? 'a symbolic link to nothing: skipped' : `cannot be read (${message}): skipped`);
      continue;
    }
    // Also inside a directory: an input directory of / holds /proc, and a link inside it may lead there.
    const problem = notAnInput(info, target);
    if (problem !== null) onUnreadable(full, `${problem}: skipped`);
    else if (info.isDirectory()) yield* filesUnder(full, root, walked, onUnreadable);
    else yield full;
  }
}

function isWithin(target: string, root: string): boolean {
  const relative = path.relative(root, target);
  return relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative);
}
