/**
 * The index directory: immutable segment files plus one `manifest.json` that
 * names the live ones. A change is published by writing a new manifest to a
 * temporary file, fsyncing it and renaming it over the old one, so readers
 * (and a process killed at any instant) see either the old index or the new
 * one, never a mix. Files the manifest does not name are garbage and are
 * removed by the next writer.
 */
import { link, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeDirectories } from '../directories.js';
import { fsyncPath } from '../fsync.js';
import { processStartMs } from './process-start.js';
import { SegmentFormatError, hasCause, indexFileReader, indexWriteError } from './segment/errors.js';

/** The first bytes of an index's segment and stored-fields files, for telling them apart from inputs (ingestion's format detection). */
export { MAGIC as SEGMENT_MAGIC } from './segment/format.js';
export { STORED_MAGIC } from './stored/format.js';

export const MANIFEST_FILE = 'manifest.json';
const LOCK_FILE = 'write.lock';
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
export class IndexLockedError extends Error {}

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
export class InvalidManifestError extends Error {}

/**
 * Whether `error`, or an error it was caused by, says a file of the index cannot be read: damaged, truncated, edited,
 * or of another format (an OutdatedFormatError is a SegmentFormatError).
 */
export function isUnreadableIndex(error: unknown): boolean {
  return hasCause(error, (cause) => cause instanceof SegmentFormatError || cause instanceof InvalidManifestError);
}

/** What to do about a manifest that cannot be read: its message had stopped at the diagnosis. */
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

/**
 * Removes segment, deletion and temporary files the manifest does not name, and
 * takeover guards of dead writers (all left by crashed writers). Called only by
 * the holder of the write lock: see takeOverStale for why guards are removed
 * by no one else.
 */
/** Files a writer makes besides the manifest and its lock: segments, their stored fields and deletions, a manifest being written. */
const WRITTEN_FILE = /^(seg-\d+\.(seg|stored|del-\d+)|manifest\.json\.tmp-\d+)$/;

/** Whether a file of a directory is one an index keeps or its writers leave (a crashed first run leaves them without a manifest). */
export function isIndexFileName(name: string): boolean {
  return name === MANIFEST_FILE || name.startsWith(LOCK_FILE) || WRITTEN_FILE.test(name);
}

export async function removeUnreferenced(dir: string, manifest: Manifest): Promise<void> {
  const keep = new Set([MANIFEST_FILE, LOCK_FILE]);
  for (const entry of manifest.segments) {
    keep.add(`${entry.name}.seg`);
    keep.add(`${entry.name}.stored`);
    if (entry.deletions) keep.add(entry.deletions);
  }
  for (const file of await readdir(dir)) {
    if ((!keep.has(file) && WRITTEN_FILE.test(file)) || isAbandonedLockFile(file)) {
      await rm(path.join(dir, file), { force: true });
    } else if (TAKEOVER_GUARD.test(file)) {
      await removeIfHolderDead(path.join(dir, file));
    }
  }
}

/** The pid file a writer links its lock from, left behind by a writer killed while taking the lock. */
function isAbandonedLockFile(file: string): boolean {
  const writer = /^write\.lock\.tmp-(\d+)$/.exec(file);
  return writer !== null && !processExists(Number(writer[1]));
}

/** A writer lock held: how to give it back, and the directories taking it made (deepest first). */
export interface WriteLock {
  release: () => Promise<void>;
  madeDirectories: string[];
}

/** How often the index directory is made again when it vanishes before the lock's pid file is written in it. */
const DIRECTORY_ATTEMPTS = 3;

/** Makes the index directory and its missing parents; answers the ones made, deepest first. */
function makeIndexDirectories(dir: string): string[] {
  try {
    return makeDirectories(dir);
  } catch (error) {
    // mkdir's own message names the syscall, not what the directory was for.
    const { code, message } = error as NodeJS.ErrnoException;
    throw new Error(code === 'ENOTDIR' ? `the index directory ${dir} is a file, or lies under one` : `cannot create the index directory ${dir} (${message})`);
  }
}

/**
 * Takes the directory's writer lock (one ingestion at a time), making the directory if it is missing. A
 * lock left by a process that no longer exists, or that cannot be the process now of its pid (mayHold),
 * is taken over.
 */
export async function acquireWriteLock(dir: string): Promise<WriteLock> {
  let madeDirectories = makeIndexDirectories(dir);
  const lockPath = path.join(dir, LOCK_FILE);
  // The lock appears with its holder's pid already in it (written aside, then linked in place): a
  // lock created but not yet written had read as empty, hence stale, and a second writer took it over.
  const pending = `${lockPath}.tmp-${process.pid}`;
  /** The live guard last found in the way, as `process N (file)`; undefined when it had just gone. */
  let busyGuard: string | undefined;
  let pendingKey: string | undefined;
  try {
    // Inside the try: a write that fails midway (a full disk) still leaves the file, to be removed.
    // A writer that published nothing removes the directories it made once it has let go of the lock: the
    // directory found or made above can be gone before the pid file lands in it, and is made again.
    for (let attempt = 1; ; attempt++) {
      try {
        await writeFile(pending, String(process.pid));
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // The kernel's message names a lock file; the operator needs to know it is the index folder that takes no writes.
        if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
          throw new Error(`cannot write in the index directory ${dir} (${code}: ${code === 'EROFS' ? 'a read-only file system' : 'permission denied'}): an index is built where it can be written`, { cause: error });
        }
        if (code !== 'ENOENT') throw error;
        if (attempt === DIRECTORY_ATTEMPTS) {
          throw new Error(`the index directory ${dir} was removed ${attempt} times in a row while this writer was taking its lock; is another program removing it?`, { cause: error });
        }
        madeDirectories = makeIndexDirectories(dir);
      }
    }
    // Known before it is linked as the lock, so no writer of this process ever sees it as another's.
    pendingKey = fileKey(await stat(pending));
    locksOfThisProcess.add(pendingKey);
    const holding = (key: string): WriteLock => ({
      release: async () => {
        await rm(lockPath, { force: true });
        locksOfThisProcess.delete(key);
      },
      madeDirectories,
    });
    for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
      try {
        await linkLockFile(pending, lockPath);
        return holding(pendingKey);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const found = await inspectLock(lockPath);
      if (found === null) continue; // released meanwhile
      refuseUnlessStale(dir, lockPath, found);
      const outcome = await takeOverStale(lockPath, pending, found);
      if (outcome === 'taken') return holding(pendingKey);
      if (outcome !== 'changed') {
        busyGuard = outcome.busy;
        await sleep(TAKEOVER_RETRY_MS);
      }
    }
    const advice = busyGuard === undefined ? '' : ". If no ingestion runs, that process reused a dead writer's pid: remove the guard file";
    throw new IndexLockedError(`could not lock ${dir}: ${busyGuard ?? 'another writer'} is taking over its stale lock; try again${advice}`);
  } catch (error) {
    if (pendingKey !== undefined) locksOfThisProcess.delete(pendingKey);
    // A disk already full fails here, at the writer's first write: said for the index, as a later write is.
    throw indexWriteError(dir, (await readManifestOrEmpty(dir).catch(() => null))?.generation ?? 0, error);
  } finally {
    await rm(pending, { force: true });
  }
}

/**
 * The lock files (as fileKey) that writers of this process hold or are linking. A lock naming this
 * process that is not among them is an earlier process's of the same pid (a container's writer is
 * often pid 1 on every run), while several writers of one process (tests) still exclude each other.
 */
const locksOfThisProcess = new Set<string>();

/** Which file: every name linked from the pid file (lock, guards) is the same file. */
const fileKey = (file: { dev: number; ino: number }): string => `${file.dev}:${file.ino}`;

/**
 * link(), whose EEXIST is what makes the lock exclusive. A file system without
 * hard links (some network and FUSE mounts) answered with the bare system call
 * error, which said nothing of what to do.
 */
async function linkLockFile(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
      throw new Error(`cannot lock ${path.dirname(to)}: its file system does not allow hard links (${code}), which the index's write lock needs; put the index on a local file system`, { cause: error });
    }
    throw error;
  }
}

/** Enough rounds for another writer's takeover (a few file operations) to finish, at TAKEOVER_RETRY_MS each. */
const LOCK_ATTEMPTS = 50;
const TAKEOVER_RETRY_MS = 20;
/** A lock naming no process (left by a version that created it empty) is taken over only after this long. */
const UNREADABLE_LOCK_STALE_MS = 60_000;

interface LockFile {
  device: number;
  /** Which file: a lock removed and created again has another inode, even with the same text. */
  inode: number;
  text: string;
  modifiedMs: number;
}

async function inspectLock(file: string): Promise<LockFile | null> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    // Through one handle, so the inode and the text are those of the same file.
    const { dev, ino, mtimeMs } = await handle.stat();
    return { device: dev, inode: ino, text: await handle.readFile('utf8'), modifiedMs: mtimeMs };
  } finally {
    await handle.close();
  }
}

const holderOf = (lock: LockFile): number | null => {
  const holder = Number(lock.text);
  return Number.isInteger(holder) && holder > 0 ? holder : null;
};

/** Throws IndexLockedError unless the lock may be taken over. */
function refuseUnlessStale(dir: string, lockPath: string, lock: LockFile): void {
  const holder = holderOf(lock);
  if (holder !== null && mayHold(holder, lock)) {
    throw new IndexLockedError(
      `${dir} is being written by process ${holder}; wait for it to finish. ` +
        `If no ingestion or merge runs in that process (check with \`ps -p ${holder}\`), the lock was left by a writer that died: remove ${lockPath}`,
    );
  }
  if (holder === null && Date.now() - lock.modifiedMs <= UNREADABLE_LOCK_STALE_MS) {
    throw new IndexLockedError(
      `${dir} is locked (${lockPath} names no process yet: a writer is starting, or one died leaving it empty); ` +
        `wait: it is taken over once ${UNREADABLE_LOCK_STALE_MS / 1000} s old, or remove it if no ingestion runs`,
    );
  }
}

/**
 * How much later than the lock's last change its named process may seem to have started and still
 * hold it: file systems keep coarse times (FAT: 2 s), /proc's boot time is rounded to the second, and
 * the clock may be adjusted while a writer runs. A lock left less than this before its pid was
 * reused stays refused, with advice to remove it.
 */
const START_AFTER_LOCK_TOLERANCE_MS = 60_000;

/**
 * Whether the process a lock names can be the one holding it: it exists, it is not this process
 * (unless one of this process's writers holds that very lock), and on Linux, it had started by the
 * time the lock was written (otherwise it is an unrelated process that reused a dead writer's pid).
 */
function mayHold(holder: number, lock: LockFile): boolean {
  if (holder === process.pid) return locksOfThisProcess.has(fileKey({ dev: lock.device, ino: lock.inode }));
  if (!processExists(holder)) return false;
  const started = processStartMs(holder);
  return started === null || started <= lock.modifiedMs + START_AFTER_LOCK_TOLERANCE_MS;
}

/**
 * Replaces the stale lock that was inspected with this writer's own. Removing a
 * lock and linking another are two steps: two writers that inspected the same
 * stale lock would each remove what they found and link their own, the second
 * removing the first's fresh lock, and both would write. So the replacement is
 * done only under a guard file (created by link, like the lock, so it always
 * names its holder), after checking that the lock is still the one inspected.
 *
 * A writer may die holding a guard. Its guard is then skipped, not removed:
 * two writers that both found it dead would each remove it, the second
 * removing the guard the first had linked meanwhile, and both would take over.
 * So guards are numbered (`write.lock.takeover-0`, `-1`, ...): every writer
 * tries them in order and links the first it can, skipping dead ones, which
 * only the lock's next holder removes. By then no takeover can succeed: each
 * would find the lock changed from the one it inspected.
 *
 * A live writer's guard is never skipped, however old: a writer stopped in
 * the middle of its takeover (SIGSTOP, a paused VM) resumes it on what it had
 * checked, and would replace the lock of a writer that went past its guard.
 */
async function takeOverStale(lockPath: string, pending: string, inspected: LockFile): Promise<'taken' | 'changed' | { busy?: string }> {
  for (let number = 0; number < TAKEOVER_GUARDS; number++) {
    const guard = `${lockPath}.takeover-${number}`;
    try {
      await linkLockFile(pending, guard);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const found = await inspectLock(guard);
      if (found === null) return {}; // its takeover just ended: look at the lock again
      if (isGuardAbandoned(found)) continue;
      return { busy: `process ${holderOf(found)} (${guard})` };
    }
    try {
      return await replaceIfUnchanged(lockPath, pending, inspected);
    } finally {
      await rm(guard, { force: true });
    }
  }
  throw new IndexLockedError(`${lockPath} cannot be taken over: ${TAKEOVER_GUARDS} takeover guards of stopped writers are in the way; remove ${lockPath}.takeover-* if no ingestion runs`);
}

async function replaceIfUnchanged(lockPath: string, pending: string, inspected: LockFile): Promise<'taken' | 'changed'> {
  const now = await inspectLock(lockPath);
  if (now === null || now.inode !== inspected.inode || now.text !== inspected.text) return 'changed';
  await rm(lockPath, { force: true });
  try {
    await linkLockFile(pending, lockPath);
  } catch (error) {
    // A writer that found no lock at all linked its own in between: it holds the lock.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'changed';
    throw error;
  }
  return 'taken';
}

/** Guards tried before giving up: each skipped one is left by a writer that died within its takeover's few milliseconds. */
const TAKEOVER_GUARDS = 20;
/** Numbered; unnumbered, an older version's (removed alike once its writer is dead). */
const TAKEOVER_GUARD = /^write\.lock\.takeover(-\d+)?$/;

/**
 * A guard whose writer died in the middle of a takeover. One naming this very process is from an earlier
 * process of the same pid (a container's writer killed mid-takeover and restarted): a process takes the
 * lock once at a time, and it is taking it now.
 */
function isGuardAbandoned(guard: LockFile): boolean {
  const holder = holderOf(guard);
  return holder === null || holder === process.pid || !processExists(holder);
}

/**
 * Removes a takeover guard whose writer is gone. A live writer's guard stays,
 * however old: that writer removes it by name when it resumes, and would then
 * remove whichever writer's guard had taken the name meanwhile.
 */
async function removeIfHolderDead(guard: string): Promise<void> {
  const found = await inspectLock(guard);
  if (found !== null && isGuardAbandoned(found)) await rm(guard, { force: true });
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
