/** A segment file that cannot be read: not a segment, another format version, truncated or damaged. */
export class SegmentFormatError extends Error {}

/** An error about reading `file` that names it (a RangeError or SyntaxError out of a damaged file names none). */
export function namingFile(file: string, error: unknown): Error {
  if ((error as Error).message?.includes(file)) return error as Error;
  return new Error(`cannot load ${file}: ${(error as Error).message ?? error}`, { cause: error });
}

/**
 * A writer (ingestion, merge) cannot read an existing file of the index: it
 * refuses to build on it, and says what the operator can do.
 */
export function damagedIndexError(dir: string, generation: number, file: string, error: unknown): SegmentFormatError {
  return new SegmentFormatError(
    `${namingFile(file, error).message}; the index ${dir} is damaged: re-ingest the corpus into a new index directory ` +
      `(nothing was written: servers keep serving generation ${generation})`,
    { cause: error },
  );
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
  const reason = code === 'ENOSPC' ? 'no space left on device' : 'disk quota exceeded';
  return new Error(`${reason} writing the index ${dir}: the index is unchanged (generation ${generation}); free space and run again`, { cause: error });
}
