/**
 * One server per data directory while the platform store is the embedded one: the LMDB store
 * queues its writes within one process only (each write reads, checks, then commits), and the
 * ACLs are held in memory, reloaded after this process's own writes. A second server on the same
 * `--data` would lose updates and enforce revoked grants, so it is refused at start.
 *
 * The lock is an abstract unix socket named after the directory's device and inode (the same
 * directory under a symbolic link or a bind mount is the same lock). The kernel frees it
 * when its process ends, however it ends, so a crash never leaves a stale lock to take over (a
 * pid file would, and after a crash in a container its pid exists again there). Abstract sockets
 * belong to a network namespace: servers in two containers sharing one volume do not see each other.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Config } from './config.js';
import { makeDirectories } from './directories.js';
import { embeddedStoreDirectory } from './platform/index.js';
import { refuseForeignLmdbFile } from './platform/store/lmdb-header.js';

export class DataDirectoryInUseError extends Error {}

/** Takes the directory (created if missing, refused unless writable); resolves with its release. */
export async function lockDataDirectory(dir: string): Promise<() => Promise<void>> {
  try {
    makeDirectories(dir);
    accessSync(dir, constants.W_OK);
  } catch (error) {
    // The kernel's message names the system call; the operator needs the setting.
    throw new Error(`cannot use the data directory ${dir} (--data / DATA_DIR): ${(error as Error).message}`);
  }
  // Abstract sockets are Linux's own; elsewhere (a development machine) nothing is locked.
  if (process.platform !== 'linux') return async () => {};
  const { dev, ino } = statSync(dir, { bigint: true });
  const name = `\0litserve-data-${createHash('sha256').update(`${dev}:${ino}`).digest('hex').slice(0, 32)}`;
  const lock = createServer();
  await new Promise<void>((resolve, reject) => {
    lock.once('error', reject);
    lock.listen(name, resolve);
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    throw new DataDirectoryInUseError(
      `another litserve is serving the data directory ${dir} (--data / DATA_DIR): its embedded platform store takes one server; ` +
        'give each server its own --data, or share a PostgreSQL --platform-store',
    );
  });
  // The lock alone must not keep the process running.
  lock.unref();
  return () => new Promise((resolve) => lock.close(() => resolve()));
}

/**
 * Takes the data directory with the embedded platform store (one server per --data); resolves with its release.
 * Called before the server builds anything there, the demo index included: a second start is refused with the
 * lock's message, not met at whatever the first one is still writing.
 */
export async function lockDataOf(config: Config): Promise<() => Promise<void>> {
  if (config.platformStore !== 'lmdb') return async () => {};
  const release = await lockDataDirectory(config.data);
  // Before the demo build too: a file LMDB cannot read would otherwise be met only once the index is built.
  try {
    refuseForeignLmdbFile(embeddedStoreDirectory(config.data));
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
