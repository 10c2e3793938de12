/** Turning the paths given on a command line into the files to read. */
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** Told of each entry of an input directory that cannot be read (a dangling link, no permission), which is then skipped. */
export type OnUnreadable = (file: string, message: string) => void;

/**
 * Yields each path that is a file, and the files under each directory
 * (recursively, in sorted order, skipping hidden files and directories such
 * as .DS_Store or .git). A path given that does not exist is an error, not an
 * empty input: it is almost always a typo. Inside a directory, an entry that
 * cannot be read is reported and skipped, and a directory is walked once
 * however many links lead to it (a link to an ancestor would loop).
 */
export async function* expandInputs(paths: string[], onUnreadable: OnUnreadable = () => undefined): AsyncIterable<string> {
  const walked = new Set<string>();
  for (const input of paths) {
    const info = await stat(input).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new Error(`Input path does not exist: ${input}`);
      throw error;
    });
    if (info.isDirectory()) yield* filesUnder(input, walked, onUnreadable);
    else yield input;
  }
}

async function* filesUnder(directory: string, walked: Set<string>, onUnreadable: OnUnreadable): AsyncGenerator<string> {
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
    try {
      // stat follows symbolic links, so a link to a directory is descended into.
      info = entry.isSymbolicLink() ? await stat(full) : entry;
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      onUnreadable(full, code === 'ENOENT' ? 'a symbolic link to nothing: skipped' : `cannot be read (${message}): skipped`);
      continue;
    }
    if (info.isDirectory()) yield* filesUnder(full, walked, onUnreadable);
    else if (info.isFile()) yield full;
  }
}
