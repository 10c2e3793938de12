/**
 * The write lock's files in the index directory, as write-lock.ts names them: the lock, the pid file a
 * writer links it from (`write.lock.tmp-PID`) and the takeover guards (`write.lock.takeover-N`). What one
 * says, whether the writer that left it is gone, and removing those of dead writers: the lock reads them,
 * and so does the index directory's garbage removal (manifest.ts).
 */
import { open, rm } from 'node:fs/promises';
import path from 'node:path';

export const LOCK_FILE = 'write.lock';

/**
 * Removes a file of the lock left by a writer that is gone: the pid file it links its lock from, or a takeover
 * guard (see takeOverStale in write-lock.ts for why only the lock's holder removes those). Other files are
 * left alone.
 */
export async function removeAbandonedLockFile(dir: string, file: string): Promise<void> {
  if (isAbandonedLockFile(file)) {
    await rm(path.join(dir, file), { force: true });
  } else if (TAKEOVER_GUARD.test(file)) {
    await removeIfHolderDead(path.join(dir, file));
  }
}

/** The pid file a writer links its lock from, left behind by a writer killed while taking the lock. */
function isAbandonedLockFile(file: string): boolean {
  const writer = /^write\.lock\.tmp-(\d+)$/.exec(file);
  return writer !== null && !processExists(Number(writer[1]));
}

export interface LockFile {
  device: number;
  /** Which file: a lock removed and created again has another inode, even with the same text. */
  inode: number;
  text: string;
  modifiedMs: number;
}

export async function inspectLock(file: string): Promise<LockFile | null> {
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

export const holderOf = (lock: LockFile): number | null => {
  const holder = Number(lock.text);
  return Number.isInteger(holder) && holder > 0 ? holder : null;
};

/** Numbered; unnumbered, an older version's (removed alike once its writer is dead). */
const TAKEOVER_GUARD = /^write\.lock\.takeover(-\d+)?$/;

/**
 * A guard whose writer died in the middle of a takeover. One naming this very process is from an earlier
 * process of the same pid (a container's writer killed mid-takeover and restarted): a process takes the
 * lock once at a time, and it is taking it now.
 */
export function isGuardAbandoned(guard: LockFile): boolean {
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

export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
