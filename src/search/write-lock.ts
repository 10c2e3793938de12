/**
 * The index directory's write lock: one writer (an ingestion, a merge) at a time. The lock is a file naming its
 * holder's pid, linked into place; a lock whose holder is gone is taken over under a guard file.
 */
import { link, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeDirectories } from '../directories.js';
import { readManifestOrEmpty } from './manifest.js';
import { processStartMs } from './process-start.js';
import { indexWriteError } from './segment/errors.js';
import { LOCK_FILE, type LockFile, holderOf, inspectLock, isGuardAbandoned, processExists } from './write-lock-files.js';

export class IndexLockedError extends Error {}

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
  // lock created but not yet written would read as empty, hence stale, and a second writer would take it over.
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
          throw new Error(
            `the index directory ${dir} was removed ${attempt} times in a row while this writer was taking its lock; is another program removing it?`,
            { cause: error },
          );
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
      throw new Error(
        `cannot lock ${path.dirname(to)}: its file system does not allow hard links (${code}), which the index's write lock needs; put the index on a local file system`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** Enough rounds for another writer's takeover (a few file operations) to finish, at TAKEOVER_RETRY_MS each. */
const LOCK_ATTEMPTS = 50;
const TAKEOVER_RETRY_MS = 20;
/** A lock naming no process (left by a version that created it empty) is taken over only after this long. */
const UNREADABLE_LOCK_STALE_MS = 60_000;

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
  throw new IndexLockedError(
    `${lockPath} cannot be taken over: ${TAKEOVER_GUARDS} takeover guards of stopped writers are in the way; remove ${lockPath}.takeover-* if no ingestion runs`,
  );
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
