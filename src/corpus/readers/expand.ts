/** Turning the paths given on a command line into the files to read. */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Yields each path that is a file, and the files under each directory
 * (recursively, in sorted order, skipping hidden files and directories such
 * as .DS_Store or .git). A path that does not exist is an error, not an
 * empty input: it is almost always a typo.
 */
export async function* expandInputs(paths: string[]): AsyncIterable<string> {
  for (const input of paths) {
    const info = await stat(input).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new Error(`Input path does not exist: ${input}`);
      throw error;
    });
    if (info.isDirectory()) yield* filesUnder(input);
    else yield input;
  }
}

async function* filesUnder(directory: string): AsyncGenerator<string> {
  const entries = await readdir(directory, { withFileTypes: true });
  const visible = entries
    .filter((entry) => !entry.name.startsWith('.'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of visible) {
    const full = path.join(directory, entry.name);
    // stat follows symbolic links, so a link to a directory is descended into.
    const info = entry.isSymbolicLink() ? await stat(full) : entry;
    if (info.isDirectory()) yield* filesUnder(full);
    else if (info.isFile()) yield full;
  }
}
