/**
 * A stale write lock naming a pid that is alive for another reason must not
 * block ingestion for good: the writer's own pid (a container's writer is the
 * same pid on every run) and, on Linux, a process that started after the lock
 * was written cannot be its holder. A process that had started by then is
 * still refused, with the way out in the message.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireWriteLock, IndexLockedError } from '../../src/search/write-lock.js';
import { tempDir } from '../search/helpers.js';
import { killChild } from '../reliability/server-process.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function lockedDir(holder: number): Promise<{ dir: string; lockFile: string }> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  const lockFile = path.join(dir, 'write.lock');
  await writeFile(lockFile, String(holder));
  return { dir, lockFile };
}

/** A live process unrelated to any writer, ended after the test. */
async function bystander(): Promise<number> {
  const child: ChildProcess = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  cleanups.push(() => killChild(child));
  return child.pid!;
}

describe('a write lock naming a live process that cannot hold it', () => {
  it("is taken over when it names this process but none of this process's writers holds it", async () => {
    const { dir, lockFile } = await lockedDir(process.pid);
    const { release } = await acquireWriteLock(dir);
    // Now held here: another writer of the same process is refused.
    await expect(acquireWriteLock(dir)).rejects.toThrow(IndexLockedError);
    await release();
    await expect(readFile(lockFile, 'utf8')).rejects.toThrow('ENOENT');
  });

  it.skipIf(process.platform !== 'linux')('is taken over when its process started after the lock was written (Linux only: process start times come from /proc)', async () => {
    const pid = await bystander();
    const { dir, lockFile } = await lockedDir(pid);
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(lockFile, hourAgo, hourAgo);
    const { release } = await acquireWriteLock(dir);
    expect(await readFile(lockFile, 'utf8')).toBe(String(process.pid));
    await release();
  });

  it('is refused when its process was running when the lock was written, saying how to check and what to remove', async () => {
    const pid = await bystander();
    const { dir, lockFile } = await lockedDir(pid);
    const refusal = acquireWriteLock(dir);
    await expect(refusal).rejects.toThrow(IndexLockedError);
    await expect(refusal).rejects.toThrow(`ps -p ${pid}`);
    await expect(refusal).rejects.toThrow(`remove ${lockFile}`);
    expect(await readFile(lockFile, 'utf8')).toBe(String(pid));
  });
});
