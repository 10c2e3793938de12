/**
 * Where each entry goes inside the ZIP, and the checks on the whole layout:
 * names that are duplicated, alike but for case, or both a file and a directory.
 * Default names of File entries depend on the file's current name, so they
 * (their portability and length) are checked at creation when the file can be
 * looked up, and again, on the resolved files, before the first byte of a download.
 */
import type { ArchiveEntry, FileEntry, FileSelfEntry } from './definition.js';
import { originalOf, sameEntryKey } from './definition.js';
import { defaultFileName, defaultResourceName, entryNameOf, findEntryConflicts, overlongNameMessages, unportableNameMessages } from './paths.js';

/** The entry's name in the ZIP; `filename` is the file's `_filename` for File and FileSelf entries without a path. */
export function entryName(entry: ArchiveEntry, file?: { project: string; filename: string }): string | null {
  if (entry.path !== undefined) return entryNameOf(entry.path);
  if (entry.type === 'Resource') return defaultResourceName(entry.project, entry.format, originalOf(entry));
  return file ? defaultFileName(file.project, file.filename) : null;
}

/**
 * The entries with each File/FileSelf entry written twice, once without a path and once with the file's default name
 * (as `fileOf` finds it now) spelt out as its path, taken as one entry, as decodeEntries takes a resource's. The one
 * with the path is kept, under the first index of the two: its name stays what the creator wrote if the file is renamed.
 */
export function mergeSpeltOutFileDefaults(
  entries: readonly ArchiveEntry[],
  indexes: readonly number[],
  fileOf: (entry: FileEntry | FileSelfEntry) => { project: string; filename: string } | null,
): { entries: ArchiveEntry[]; indexes: number[] } {
  // Only a File or FileSelf entry with a path can be the twin of one without.
  const positionOf = new Map<string, number>();
  entries.forEach((entry, position) => {
    if (entry.type !== 'Resource' && entry.path !== undefined) positionOf.set(sameEntryKey(entry), position);
  });
  const merged = [...indexes];
  const dropped = new Set<number>();
  entries.forEach((entry, position) => {
    const file = entry.type === 'Resource' || entry.path !== undefined ? null : fileOf(entry);
    if (file === null) return;
    const twin = positionOf.get(sameEntryKey(entry, `/${defaultFileName(file.project, file.filename)}`));
    if (twin === undefined) return;
    dropped.add(position);
    merged[twin] = Math.min(merged[twin]!, merged[position]!);
  });
  const kept = (_: unknown, position: number) => !dropped.has(position);
  return { entries: entries.filter(kept), indexes: merged.filter(kept) };
}

/** Entries a conflict line names before it only counts the rest. */
const MAX_NAMED_ENTRIES = 10;

/** How a problem line names the entries it concerns (their indexes in `resources`). */
function entriesLabel(indexes: readonly number[]): string {
  const named = indexes.slice(0, MAX_NAMED_ENTRIES).map((index) => `resources[${index}]`);
  const rest = indexes.length - named.length;
  return rest > 0 ? `${named.join(', ')} and ${rest} more entries` : named.join(', ');
}

/**
 * Every problem of the layout, as DecodingFailed messages, each naming the entries it concerns:
 * `indexes[i]` is the index in `resources` of `entries[i]`. `fileOf` gives the current file behind
 * a File/FileSelf entry without a path, or null when it cannot be known (then its name is checked
 * when the archive is downloaded). Each entry's own names (explicit paths, resources' default
 * names) were checked when it was decoded; a file's default name is checked here.
 */
export function layoutProblems(
  entries: readonly ArchiveEntry[],
  indexes: readonly number[],
  fileOf: (entry: FileEntry | FileSelfEntry) => { project: string; filename: string } | null,
): string[] {
  const named = entries.flatMap((e, i) => {
    const name = entryName(e, e.type === 'Resource' || e.path !== undefined ? undefined : (fileOf(e) ?? undefined));
    return name === null ? [] : [{ name, index: indexes[i]!, isFileDefault: e.type !== 'Resource' && e.path === undefined }];
  });
  return [
    ...named.flatMap(({ name, index, isFileDefault }) =>
      isFileDefault ? [...unportableNameMessages([name]), ...overlongNameMessages([name])].map((message) => `resources[${index}]: ${message}`) : [],
    ),
    ...findEntryConflicts(named).map(({ indexes: involved, message }) => `${entriesLabel(involved)}: ${message}`),
  ];
}
