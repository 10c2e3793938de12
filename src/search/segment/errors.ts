/** A segment file that cannot be read: not a segment, another format version, truncated or damaged. */
export class SegmentFormatError extends Error {
  /**
   * The file, when a read of a loaded index found it truncated or damaged (it
   * changed on disk after its checks at load): the server then answers 503
   * and logs the file. Null for a file refused when it was opened.
   */
  readonly damagedFile: string | null;

  constructor(message: string, options: ErrorOptions & { damagedFile?: string } = {}) {
    super(message, options);
    this.damagedFile = options.damagedFile ?? null;
  }
}

/**
 * A file written in another format than this version reads: no damage (its message says to re-ingest), so the
 * advice given for damaged files, which calls the index damaged, is not added to it.
 */
export class OutdatedFormatError extends SegmentFormatError {}

/** Whether `error`, or an error it was caused by, passes `test`. */
export function hasCause(error: unknown, test: (cause: Error) => boolean): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (test(cause)) return true;
  return false;
}

/** Whether `error`, or an error it was caused by, is an OutdatedFormatError. */
export function isOutdatedFormat(error: unknown): boolean {
  return hasCause(error, (cause) => cause instanceof OutdatedFormatError);
}

/**
 * What is said after a file's own message: the advice for a damaged index, or nothing for an outdated file. A
 * file missing is also what a copy in progress shows (manifest copied before the files it names, as
 * DEPLOY.md's rollout warns against): said too, since "re-ingest" alone is wrong advice there.
 */
function adviceAfter(dir: string, error: unknown): string {
  if (error instanceof OutdatedFormatError) return '';
  const missing = error instanceof SegmentFormatError && (error as NodeJS.ErrnoException).code === 'ENOENT';
  const copying = missing ? ' (or its copy is not complete: copy manifest.json last, docs/DEPLOY.md)' : '';
  return `; the index ${dir} is damaged${copying}: re-ingest the corpus into a new index directory`;
}

/** The file a read of a loaded index found truncated or damaged, if `error` says one did. */
export function damagedFileOf(error: unknown): string | null {
  return error instanceof SegmentFormatError ? error.damagedFile : null;
}

/** A damaged file as a worker thread hands it back: structured cloning keeps an error's message, not its class or fields. */
interface CarriedDamage {
  damagedFile: string;
  message: string;
}

/** What a worker thread throws for `error`: a damaged file as a plain object, anything else as it is. */
export function carriedAcrossThreads(error: unknown): unknown {
  const damagedFile = damagedFileOf(error);
  return damagedFile === null ? error : ({ damagedFile, message: (error as Error).message } satisfies CarriedDamage);
}

/** The error a worker thread threw (see carriedAcrossThreads), with its kind back. */
export function restoredFromThread(error: unknown): unknown {
  const carried = error as Partial<CarriedDamage> | null;
  if (error instanceof Error || typeof carried?.damagedFile !== 'string' || typeof carried.message !== 'string') return error;
  return new SegmentFormatError(carried.message, { damagedFile: carried.damagedFile });
}

/** An error about reading `file` that names it (a RangeError or SyntaxError out of a damaged file names none). */
function namingFile(file: string, error: unknown): Error {
  if ((error as Error).message?.includes(file)) return error as Error;
  return new Error(`cannot load ${file}: ${(error as Error).message ?? error}`, { cause: error });
}

/**
 * A writer (ingestion, merge) cannot read an existing file of the index: it
 * refuses to build on it, and says what the operator can do.
 */
export function damagedIndexError(dir: string, generation: number, file: string, error: unknown): SegmentFormatError {
  return new SegmentFormatError(
    `${namingFile(file, error).message}${adviceAfter(dir, error)} (nothing was written: servers keep serving generation ${generation})`,
    { cause: error },
  );
}

/**
 * A file of the index that a reader (serve, eval) cannot load, named. One found truncated or damaged
 * comes with the advice writers give; any other failure (permissions, too many open files) is no damage
 * and says what it is.
 */
export function unloadableIndexFileError(dir: string, file: string, error: unknown): Error {
  if (!(error instanceof SegmentFormatError)) return namingFile(file, error);
  return new SegmentFormatError(`${namingFile(file, error).message}${adviceAfter(dir, error)}`, { cause: error });
}

/** How a writer reads the index's existing files: one that cannot be read is damagedIndexError, naming it. */
export function indexFileReader(dir: string, generation: number) {
  return async <T>(file: string, read: () => Promise<T> | T): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      throw damagedIndexError(dir, generation, file, error);
    }
  };
}

/** A write that failed for lack of space (ENOSPC) or quota (EDQUOT), said with the index it was for. */
export function indexWriteError(dir: string, generation: number, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return error;
  // ENOSPC is also a device out of inodes, where `df -h` shows space to spare.
  const reason = code === 'ENOSPC' ? 'no space left on device (no free block, or no free inode: `df -h` and `df -i` tell which)' : 'disk quota exceeded';
  // An ingestion into a new directory says no index was written, not "the index is unchanged (generation 0)" of one that never was.
  const unchanged = generation === 0 ? 'no index was written' : `the index is unchanged (generation ${generation})`;
  return new Error(`${reason} writing the index ${dir}: ${unchanged}; free space and run again`, { cause: error });
}
