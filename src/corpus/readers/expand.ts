/** Turning the paths given on a command line into the files to read. */
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { NotAnInputError, notAnInput } from './input.js';

/**
 * Told of each entry of an input directory that is skipped (a dangling link, no permission, a link out of the
 * directory, a pipe), and why; `kind` is 'folder' for a subfolder that cannot be listed, so that a summary
 * counting files does not count it as one, 'file' for any other entry.
 */
export type OnUnreadable = (entry: string, message: string, kind: 'file' | 'folder') => void;

/** What else a walk of input directories tells its caller, beside the entries it cannot read. */
interface WalkOptions {
  /** A directory (its real path) never read as input: the index the run writes, which may lie inside an input folder. */
  skipDirectory?: string;
  /** Told of each directory passed over as `skipDirectory`. */
  onSkippedDirectory?: (directory: string) => void;
  /** Told of each hidden entry (.git, .DS_Store) left unread inside an input directory. */
  onHidden?: (entry: string) => void;
  /** Told of each directory given as an input that yields no file to read, with what the walk found in it. */
  onEmptyDirectory?: (directory: string, found: WalkCounts) => void;
}

/** What a walk found under one directory given as an input (at any depth), to tell an empty one. */
export interface WalkCounts {
  /** Files yielded. */
  files: number;
  /** Entries not hidden: files, directories, and entries skipped as unreadable. */
  visible: number;
  hidden: number;
}

/**
 * Yields each path that is a file, and the files under each directory
 * (recursively, in sorted order, skipping hidden files and directories such
 * as .DS_Store or .git, each told to `onHidden`). A path given that does not exist is an error, not an
 * empty input: it is almost always a typo; so is one that is no regular file
 * (a pipe, a device, a pseudo-file of /proc or /sys): readers open a file more
 * than once and read it at positions, and a pseudo-file may never end.
 *
 * A path given may be a link to anywhere: the operator chose it. Inside a
 * directory, a link is followed only to a place inside that directory's real
 * path, so a folder of papers holding a link to /proc/kmsg or to someone's
 * home does not read it; an entry that cannot be read (a subdirectory without permission too)
 * or is no regular file is reported and skipped, and a directory is walked once however many links
 * lead to it (a link to an ancestor would loop). A file too is yielded once however many paths lead to
 * it (given twice, given and inside a folder given, linked), rather than read, and reported skipped, once
 * per path. A link out of a directory to something given as an input itself is no skip: it is read as that.
 */
export async function* expandInputs(
  paths: string[],
  onUnreadable: OnUnreadable = () => undefined,
  options: WalkOptions = {},
): AsyncIterable<string> {
  const walked = new Set<string>();
  const yielded = new Set<string>();
  // Missing inputs are reported in their turn, below.
  const given = new Set(await Promise.all(paths.map((input) => realpath(input).catch(() => input))));
  for (const input of paths) {
    const info = await stat(input).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new Error(`input ${input}: no such file or folder`);
      throw error;
    });
    // A pipe's path (/dev/stdin) resolves to no real path; its type alone refuses it.
    const real = info.isFile() || info.isDirectory() ? await realpath(input) : input;
    const problem = notAnInput(info, real);
    if (problem !== null) throw new NotAnInputError(input, problem);
    if (!info.isDirectory()) {
      if (!yielded.has(real)) {
        yielded.add(real);
        yield input;
      }
      continue;
    }
    const counts: WalkCounts = { files: 0, visible: 0, hidden: 0 };
    // A directory walked already (given twice) is not empty: its files were read the first time.
    const first = !walked.has(real);
    yield* filesUnder(input, real, { walked, yielded, given, onUnreadable, options, counts });
    if (first && counts.files === 0) options.onEmptyDirectory?.(input, counts);
  }
}

interface Walk {
  /** Real paths of the directories walked. */
  walked: Set<string>;
  /** Real paths of the files yielded. */
  yielded: Set<string>;
  /** Real paths of the inputs given. */
  given: ReadonlySet<string>;
  onUnreadable: OnUnreadable;
  options: WalkOptions;
  counts: WalkCounts;
}

async function* filesUnder(directory: string, root: string, walk: Walk): AsyncGenerator<string> {
  const { walked, yielded, given, onUnreadable, options, counts } = walk;
  const real = await realpath(directory);
  if (walked.has(real)) return;
  walked.add(real);
  let entries;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    // The directory given itself ends the run, as any input given that cannot be read does; one found inside it is skipped.
    if (real === root) throw error;
    onUnreadable(directory, `cannot be read (${(error as Error).message}): skipped`, 'folder');
    return;
  }
  const visible = [];
  for (const entry of entries) {
    if (!entry.name.startsWith('.')) visible.push(entry);
    else {
      counts.hidden++;
      options.onHidden?.(path.join(directory, entry.name));
    }
  }
  visible.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  counts.visible += visible.length;
  for (const entry of visible) {
    const full = path.join(directory, entry.name);
    let info;
    let target = path.join(real, entry.name);
    try {
      if (entry.isSymbolicLink()) {
        target = await realpath(full);
        if (!isWithin(target, root)) {
          if (given.has(target)) continue;
          onUnreadable(full, `a link to ${target}, outside the input directory: skipped (to read it, give ${target} as an --input itself)`, 'file');
          continue;
        }
      }
      // stat follows a link, so a link to a directory is descended into.
      info = entry.isSymbolicLink() ? await stat(full) : entry;
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      onUnreadable(full, code === 'ENOENT' ? 'a symbolic link to nothing: skipped' : `cannot be read (${message}): skipped`, 'file');
      continue;
    }
    // Also inside a directory: an input directory of / holds /proc, and a link inside it may lead there.
    const problem = notAnInput(info, target);
    if (problem !== null) onUnreadable(full, `${problem}: skipped`, 'file');
    else if (info.isDirectory() && target === options.skipDirectory) options.onSkippedDirectory?.(full);
    else if (info.isDirectory()) yield* filesUnder(full, root, walk);
    else {
      // A file reached already is not read again, and its folder is not empty for it.
      counts.files++;
      if (!yielded.has(target)) {
        yielded.add(target);
        yield full;
      }
    }
  }
}

/** Whether `target` is `root` or lies under it (both real paths). */
export function isWithin(target: string, root: string): boolean {
  const relative = path.relative(root, target);
  return relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative);
}
