/**
 * The index directory: immutable segment files plus one `manifest.json` that
 * names the live ones. A change is published by writing a new manifest to a
 * temporary file, fsyncing it and renaming it over the old one, so readers
 * (and a process killed at any instant) see either the old index or the new
 * one, never a mix. Files the manifest does not name are garbage and are
 * removed by the next writer.
 */
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fsyncPath } from '../fsync.js';
import { SegmentFormatError, hasCause, indexFileReader } from './segment/errors.js';
import { LOCK_FILE, removeAbandonedLockFile } from './write-lock-files.js';

/** The first bytes of an index's segment and stored-fields files, for telling them apart from inputs (ingestion's format detection). */
export { MAGIC as SEGMENT_MAGIC } from './segment/format.js';
export { STORED_MAGIC } from './stored/format.js';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 1;

export interface SegmentEntry {
  /** Base name: the segment file is `<name>.seg`, its stored fields `<name>.stored`. */
  name: string;
  paragraphs: number;
  articles: number;
  /** File holding the bitset of replaced (deleted) articles, or null. */
  deletions: string | null;
  deletedArticles: number;
}

export interface Manifest {
  formatVersion: number;
  generation: number;
  segments: SegmentEntry[];
}

export class IndexMissingError extends Error {
  constructor(
    /** The directory without an index: the command that builds one names it. */
    readonly dir: string,
    message: string,
  ) {
    super(message);
  }
}

export function segmentFile(dir: string, name: string): string {
  return path.join(dir, `${name}.seg`);
}

/** The segment's stored-fields file (pre-rendered JSON of its articles and paragraphs). */
export function storedFile(dir: string, name: string): string {
  return path.join(dir, `${name}.stored`);
}

/**
 * Why `dir` holds no index, from the error of reading its manifest; null for another error. Also asked as
 * a command's start is decided (src/command-files.ts), so that a mistyped --index is told the same there.
 */
export function noIndexError(dir: string, error: unknown): Error | null {
  const { code } = error as NodeJS.ErrnoException;
  if (code === 'ENOENT') return new IndexMissingError(dir, `no index in ${dir} (${MANIFEST_FILE} not found)`);
  // The system's "ENOTDIR: not a directory, open '…/manifest.json'" names a file the user never gave.
  if (code === 'ENOTDIR') return new Error(`the index directory ${dir} is a file, or lies under one`);
  return null;
}

/** A manifest that cannot be read as one (not JSON, or not a valid manifest): edited, truncated or damaged. */
class InvalidManifestError extends Error {}

/**
 * Whether `error`, or an error it was caused by, says a file of the index cannot be read: damaged, truncated, edited,
 * or of another format (an OutdatedFormatError is a SegmentFormatError).
 */
export function isUnreadableIndex(error: unknown): boolean {
  return hasCause(error, (cause) => cause instanceof SegmentFormatError || cause instanceof InvalidManifestError);
}

/** What to do about a manifest that cannot be read, said after the diagnosis so that its message does not stop there. */
const MANIFEST_ADVICE = 'restore the index directory from a backup, or re-ingest the corpus into a new index directory';

export async function readManifest(dir: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch (error) {
    throw noIndexError(dir, error) ?? error;
  }
  const file = path.join(dir, MANIFEST_FILE);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch (error) {
    throw new InvalidManifestError(`${file} is not valid JSON (${(error as Error).message}): edited or truncated by hand? ${MANIFEST_ADVICE}`);
  }
  if (manifest?.formatVersion !== MANIFEST_FORMAT) {
    throw new Error(`${dir}: index format ${manifest?.formatVersion} is not supported (expected ${MANIFEST_FORMAT}); rebuild the index`);
  }
  const problem = manifestProblem(manifest);
  if (problem !== null) throw new InvalidManifestError(`${file} is not a valid index manifest: ${problem}; ${MANIFEST_ADVICE}`);
  return manifest;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
/** Articles and paragraphs are numbered with Int32 ids, and readers size bitsets from these counts. */
const MAX_SEGMENT_COUNT = 2 ** 31 - 1;

/** What makes a parsed manifest unusable, or null. Names become file paths, so they must be the writers' own. */
function manifestProblem(manifest: Manifest): string | null {
  if (!isCount(manifest.generation)) return 'generation is not a non-negative integer';
  if (!Array.isArray(manifest.segments)) return 'segments is not a list';
  const names = new Set<string>();
  for (const [index, entry] of manifest.segments.entries()) {
    const where = `segments[${index}]`;
    if (typeof entry?.name !== 'string' || !/^seg-\d+$/.test(entry.name)) return `${where}.name is not a segment name (seg-<digits>)`;
    if (names.has(entry.name)) return `segment ${entry.name} is listed twice`;
    names.add(entry.name);
    for (const field of ['paragraphs', 'articles', 'deletedArticles'] as const) {
      if (!isCount(entry[field]) || entry[field] > MAX_SEGMENT_COUNT) return `${where}.${field} (${entry.name}) is not a count from 0 to ${MAX_SEGMENT_COUNT}`;
    }
    if (entry.deletedArticles > entry.articles) return `${where}.deletedArticles (${entry.name}) exceeds its articles`;
    const deletionsPattern = new RegExp(`^${entry.name}\\.del-\\d+$`);
    if (entry.deletions !== null && (typeof entry.deletions !== 'string' || !deletionsPattern.test(entry.deletions))) {
      return `${where}.deletions is not a deletions file of ${entry.name}`;
    }
  }
  return null;
}

/**
 * Why a file the manifest names could not be read: one that is gone (removed by hand, lost in a copy, or by a
 * writer's publish since the manifest was read) is said missing, code ENOENT kept for readers that read the
 * manifest again; whatever its reader made of it (the system's bare "ENOENT … stat", or the stored-fields
 * opener's "built by an older version", which no segment of this format is) said neither.
 */
export async function missingOr(file: string, error: unknown): Promise<unknown> {
  const gone = await stat(file).then(() => false, (failure: NodeJS.ErrnoException) => failure.code === 'ENOENT');
  return gone ? Object.assign(new SegmentFormatError(`${file} is missing, though the manifest names it`), { code: 'ENOENT' }) : error;
}

/** How a writer reads the files the manifest names (indexFileReader), a missing one said so. */
export function namedFileReader(dir: string, generation: number) {
  const reading = indexFileReader(dir, generation);
  return <T>(file: string, read: () => Promise<T> | T): Promise<T> =>
    reading(file, async () => {
      try {
        return await read();
      } catch (error) {
        throw await missingOr(file, error);
      }
    });
}

/**
 * A manifest entry whose counts are not its segment file's (`held`; a writer reading only the ids knows just
 * the articles): edited by hand. Servers use the file's counts and writers size deletions from the entry's,
 * so both refuse it, in these words. Null when they agree.
 */
export function entryCountsError(dir: string, position: number, entry: SegmentEntry, held: { articles: number; paragraphs?: number }): SegmentFormatError | null {
  const agree = entry.articles === held.articles && (held.paragraphs === undefined || entry.paragraphs === held.paragraphs);
  if (agree) return null;
  const counts =
    held.paragraphs === undefined
      ? `counts ${entry.articles} articles, but its segment file holds ${held.articles}`
      : `counts ${entry.articles} articles and ${entry.paragraphs} paragraphs, but its segment file holds ${held.articles} and ${held.paragraphs}`;
  const file = path.join(dir, MANIFEST_FILE);
  return new SegmentFormatError(`${file} is not a valid index manifest: segments[${position}] (${entry.name}) ${counts}`);
}

/**
 * Whether `generation` is the index's published one, asked by a writer whose publication failed: one
 * that failed after its rename (fsyncing the directory) did publish, and its files are the index now.
 */
export async function isPublished(dir: string, generation: number): Promise<boolean> {
  return (await readManifestOrEmpty(dir).catch(() => null))?.generation === generation;
}

export async function readManifestOrEmpty(dir: string): Promise<Manifest> {
  try {
    return await readManifest(dir);
  } catch (error) {
    if (error instanceof IndexMissingError) return { formatVersion: MANIFEST_FORMAT, generation: 0, segments: [] };
    throw error;
  }
}

/** Atomically replaces the manifest, then removes files no manifest names any more. */
export async function publishManifest(dir: string, manifest: Manifest): Promise<void> {
  const temporary = path.join(dir, `${MANIFEST_FILE}.tmp-${process.pid}`);
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(JSON.stringify(manifest, null, 2));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path.join(dir, MANIFEST_FILE));
  } catch (error) {
    // Not left for the next writer to remove: on a full disk it holds space the operator is trying to free.
    // The write's error is the one to report, not a failure to clean up after it.
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  await fsyncPath(dir);
  await removeUnreferenced(dir, manifest);
}

/** Files a writer makes besides the manifest and its lock: segments, their stored fields and deletions, a manifest being written. */
const WRITTEN_FILE = /^(seg-\d+\.(seg|stored|del-\d+)|manifest\.json\.tmp-\d+)$/;

/** Whether a file of a directory is one an index keeps or its writers leave (a crashed first run leaves them without a manifest). */
export function isIndexFileName(name: string): boolean {
  return name === MANIFEST_FILE || name.startsWith(LOCK_FILE) || WRITTEN_FILE.test(name);
}

/**
 * Removes segment, deletion and temporary files the manifest does not name, and the lock's files left by dead
 * writers (all left by crashed writers). Called only by the holder of the write lock: see takeOverStale
 * (write-lock.ts) for why takeover guards are removed by no one else.
 */
export async function removeUnreferenced(dir: string, manifest: Manifest): Promise<void> {
  const keep = new Set([MANIFEST_FILE, LOCK_FILE]);
  for (const entry of manifest.segments) {
    keep.add(`${entry.name}.seg`);
    keep.add(`${entry.name}.stored`);
    if (entry.deletions) keep.add(entry.deletions);
  }
  for (const file of await readdir(dir)) {
    if (!keep.has(file) && WRITTEN_FILE.test(file)) await rm(path.join(dir, file), { force: true });
    else await removeAbandonedLockFile(dir, file);
  }
}
