/**
 * Where each entry goes inside the ZIP, and the checks on the whole layout:
 * length limits, and names that are duplicated or both a file and a directory.
 * Default names of File entries depend on the file's current name, so they
 * are checked at creation when the file can be looked up, and again, on the
 * resolved files, before the first byte of a download.
 */
import type { ArchiveEntry, FileEntry, FileSelfEntry } from './definition.js';
import { originalOf } from './definition.js';
import {
  MAX_FILE_NAME_LENGTH,
  conflictMessages,
  defaultFileName,
  defaultResourceFileName,
  defaultResourceName,
  entryNameOf,
  findPathConflicts,
  unportableNameMessages,
  withinLengthLimits,
} from './paths.js';

/** The entry's name in the ZIP; `filename` is the file's `_filename` for File and FileSelf entries without a path. */
export function entryName(entry: ArchiveEntry, file?: { project: string; filename: string }): string | null {
  if (entry.path !== undefined) return entryNameOf(entry.path);
  if (entry.type === 'Resource') return defaultResourceName(entry.project, entry.format, originalOf(entry));
  return file ? defaultFileName(file.project, file.filename) : null;
}

/**
 * Every problem of the layout, as DecodingFailed messages. `fileOf` gives the
 * current file behind a File/FileSelf entry without a path, or null when it
 * cannot be known yet.
 */
export function layoutProblems(
  entries: readonly ArchiveEntry[],
  fileOf: (entry: FileEntry | FileSelfEntry) => { project: string; filename: string } | null,
): string[] {
  const tooLong = entries.flatMap((e) => (e.path !== undefined && !withinLengthLimits(e.path) ? [e.path] : []));
  const longIds = entries.flatMap((e) =>
    e.type === 'Resource' && e.path === undefined && [...defaultResourceFileName(e.format, originalOf(e))].length > MAX_FILE_NAME_LENGTH
      ? [originalOf(e)]
      : [],
  );
  const names = entries.flatMap((e) => {
    const name = entryName(e, e.type === 'Resource' || e.path !== undefined ? undefined : (fileOf(e) ?? undefined));
    return name === null ? [] : [name];
  });
  const quoted = (items: string[]) => items.map((i) => `'${i}'`).join(', ');
  return [
    ...(tooLong.length > 0
      ? [
          `The paths ${quoted(tooLong)} must have a file path prefix less than 154 characters long and a file path name less than 99 characters long.`,
        ]
      : []),
    ...(longIds.length > 0
      ? [`The resource ids ${quoted(longIds)} generate a file name exceeding 99 characters, please define a path for each of them.`]
      : []),
    ...unportableNameMessages(names),
    ...conflictMessages(findPathConflicts(names)),
  ];
}
