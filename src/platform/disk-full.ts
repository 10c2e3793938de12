/**
 * Tells a write that failed for lack of room (bytes or inodes) from other failures. The errors do not always say
 * so: LMDB reports a full disk as a bare EIO as often as ENOSPC, and Node's recursive mkdir reports a parent it
 * could not create for want of an inode as ENOENT (a missing directory). The device's free blocks and inodes decide.
 */
import { statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';

/** Free bytes under which a failed write is taken for a full disk. */
const LOW_SPACE_BYTES = 64 * 1024 * 1024;
/** The codes a write that ran out of room is seen to fail with, as names or as LMDB's bare numbers (EIO 5, ENOSPC 28). */
const MAYBE_FULL = new Set<unknown>(['ENOSPC', 'EDQUOT', 'EIO', 'ENOENT', 5, 28]);

/**
 * `error`, or an ENOSPC error naming `what` and whether blocks or inodes ran out, when the device of `directory`
 * has no room left (its free space under 64 MiB, or no free inode).
 */
export async function diskFullOr(error: unknown, directory: string, what: string): Promise<unknown> {
  const code = (error as { code?: unknown } | null)?.code;
  if (!MAYBE_FULL.has(code)) return error;
  let device;
  try {
    device = await statfs(directory);
  } catch {
    return error;
  }
  // A file system without inode accounting (btrfs, some network ones) reports 0 of 0.
  const noInode = device.files > 0 && device.ffree === 0;
  const noSpace = device.bavail * device.bsize < LOW_SPACE_BYTES;
  if (code === 'ENOSPC' || code === 'EDQUOT') return noInode ? noRoom(`no free inode left on the device of ${what} ${directory}`, error) : error;
  if (!noInode && !noSpace) return error;
  return noRoom(`${noInode ? 'no free inode' : 'no space'} left on the device of ${what} ${directory}`, error);
}

/** An ENOSPC error, answered 507 as the system's own. */
function noRoom(message: string, cause?: unknown): Error {
  return Object.assign(new Error(`ENOSPC: ${message}`, cause === undefined ? undefined : { cause }), { code: 'ENOSPC' });
}

/**
 * Free bytes the embedded store keeps in reserve: a write is refused (507) before LMDB meets a full disk, where
 * it fails badly: concurrent writes on a disk filling up abort the process with heap corruption ("corrupted
 * size vs. prev_size", exit 134), and a new store created on a full disk dies of SIGSEGV or SIGBUS without a
 * line. Elasticsearch's flood-stage watermark does the same for its indices.
 */
export const STORE_RESERVE_BYTES = 8 * 1024 * 1024;

/** Throws ENOSPC, naming `what`, when the device of `directory` has less than `reserve` bytes free. */
export function assertRoomFor(directory: string, what: string, reserve: number): void {
  const { bavail, bsize } = statfsSync(directory);
  const free = bavail * bsize;
  if (free >= reserve) return;
  throw noRoom(`${(free / 1024 / 1024).toFixed(1)} MiB left on the device of ${what} ${directory}, under the ${reserve / 1024 / 1024} MiB it keeps free; free space`);
}
