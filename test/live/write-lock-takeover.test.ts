/**
 * Taking over a stale writer lock is atomic: two writers that both found the
 * lock of a dead process cannot both end up holding it. The race is replayed
 * deterministically: this process inspects the stale lock and is held there
 * while another process takes the lock over; when it resumes, it must see the
 * new holder instead of removing its lock.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MANIFEST_FORMAT, removeUnreferenced } from '../../src/search/manifest.js';
import { acquireWriteLock, IndexLockedError } from '../../src/search/write-lock.js';
import { tempDir } from '../search/helpers.js';

/** When armed, the next opening or reading of the file whose name ends with `gate.file` waits, after it read, until `resume` is called. */
const pauseAfterLockRead = vi.hoisted(() => {
  const gate = { armed: false, file: 'write.lock', reached: () => {}, resume: () => {} };
  return {
    gate,
    async after<T>(file: unknown, result: T): Promise<T> {
      if (gate.armed && String(file).endsWith(gate.file)) {
        gate.armed = false;
        const resumed = new Promise<void>((resolve) => (gate.resume = resolve));
        gate.reached();
        await resumed;
      }
      return result;
    },
  };
});

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    readFile: async (file: Parameters<typeof actual.readFile>[0], ...rest: [never]) => pauseAfterLockRead.after(file, await actual.readFile(file, ...rest)),
    open: async (file: Parameters<typeof actual.open>[0], ...rest: [never]) => pauseAfterLockRead.after(file, await actual.open(file, ...rest)),
  };
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Another writer process taking the lock of `dir`; resolves with its first line (`held` or `refused …`). */
function otherWriter(dir: string): { child: ChildProcessWithoutNullStreams; answer: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/live/hold-write-lock.ts', dir]);
  // Before the directory is removed: the writer releases its lock on the way out.
  cleanups.unshift(async () => {
    child.stdin.end();
    if (child.exitCode === null) await new Promise((resolve) => child.on('exit', resolve));
  });
  const answer = new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) resolve(output.split('\n')[0]!);
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the other writer exited (${code}) without answering: ${output}`)));
  });
  return { child, answer };
}

describe('taking over a stale writer lock', () => {
  it('leaves exactly one holder when two writers found the same stale lock', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const lockFile = path.join(dir, 'write.lock');
    await writeFile(lockFile, '999999999');

    const inspected = new Promise<void>((resolve) => (pauseAfterLockRead.gate.reached = resolve));
    Object.assign(pauseAfterLockRead.gate, { armed: true, file: 'write.lock' });
    const mine = acquireWriteLock(dir).then(
      ({ release }) => (cleanups.unshift(release), 'held'),
      (error: Error) => (error instanceof IndexLockedError ? 'refused' : Promise.reject(error)),
    );
    await inspected; // this writer has read the stale lock and is about to take it over

    const other = otherWriter(dir);
    expect(await other.answer).toBe('held');
    pauseAfterLockRead.gate.resume();
    expect(await mine).toBe('refused');
    expect(await readFile(lockFile, 'utf8')).toBe(String(other.child.pid));
    expect((await readdir(dir)).sort()).toEqual(['write.lock']);
  });

  it('waits for a takeover under way, and leaves the lock to the writer that made it', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const lockFile = path.join(dir, 'write.lock');
    await writeFile(lockFile, '999999999');
    // A live writer (the test runner, this process's parent) in the middle of its takeover holds the guard.
    await writeFile(`${lockFile}.takeover-0`, String(process.ppid));
    await expect(acquireWriteLock(dir)).rejects.toThrow(`process ${process.ppid} (${lockFile}.takeover-0) is taking over its stale lock`);
    expect(await readFile(lockFile, 'utf8')).toBe('999999999');
    expect((await readdir(dir)).sort()).toEqual(['write.lock', 'write.lock.takeover-0']);
  });

  it('skips the guard of a writer that died during its takeover; the new holder removes it', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const lockFile = path.join(dir, 'write.lock');
    await writeFile(lockFile, '999999999');
    await writeFile(`${lockFile}.takeover-0`, '999999998');
    const { release } = await acquireWriteLock(dir);
    expect(await readFile(lockFile, 'utf8')).toBe(String(process.pid));
    expect((await readdir(dir)).sort()).toEqual(['write.lock', 'write.lock.takeover-0']);
    // What every writer does once it holds the lock.
    await removeUnreferenced(dir, { formatVersion: MANIFEST_FORMAT, generation: 0, segments: [] });
    expect((await readdir(dir)).sort()).toEqual(['write.lock']);
    await release();
  });

  it('does not take over while another writer that skipped the same dead guard is taking over', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const lockFile = path.join(dir, 'write.lock');
    await writeFile(lockFile, '999999999');
    await writeFile(`${lockFile}.takeover-0`, '999999998');

    const inspected = new Promise<void>((resolve) => (pauseAfterLockRead.gate.reached = resolve));
    Object.assign(pauseAfterLockRead.gate, { armed: true, file: 'write.lock.takeover-0' });
    const mine = acquireWriteLock(dir);
    await inspected; // this writer has found the dead guard
    // Meanwhile another writer found it dead too and is in the middle of its takeover, under the next guard.
    await writeFile(`${lockFile}.takeover-1`, String(process.ppid));
    pauseAfterLockRead.gate.resume();
    await expect(mine).rejects.toThrow(`process ${process.ppid} (${lockFile}.takeover-1) is taking over its stale lock`);
    expect(await readFile(lockFile, 'utf8')).toBe('999999999');
    expect((await readdir(dir)).sort()).toEqual(['write.lock', 'write.lock.takeover-0', 'write.lock.takeover-1']);
  });

  it('a guard naming this very process is from an earlier process of its pid, killed mid-takeover: skipped', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const lockFile = path.join(dir, 'write.lock');
    await writeFile(lockFile, '999999999');
    await writeFile(`${lockFile}.takeover-0`, String(process.pid));
    const { release } = await acquireWriteLock(dir);
    expect(await readFile(lockFile, 'utf8')).toBe(String(process.pid));
    await release();
  });

  it('a live writer\'s guard holds however long its takeover takes, and the next holder leaves it', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const lockFile = path.join(dir, 'write.lock');
    await writeFile(lockFile, '999999999');
    // A live writer (the test runner, this process's parent) stopped in its takeover a minute ago: it will resume on what it checked.
    await writeFile(`${lockFile}.takeover-0`, String(process.ppid));
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + 60_000);
    try {
      await expect(acquireWriteLock(dir)).rejects.toThrow(`process ${process.ppid} (${lockFile}.takeover-0) is taking over its stale lock`);
    } finally {
      vi.restoreAllMocks();
    }
    expect(await readFile(lockFile, 'utf8')).toBe('999999999');
    await rm(lockFile);
    const { release } = await acquireWriteLock(dir);
    await removeUnreferenced(dir, { formatVersion: MANIFEST_FORMAT, generation: 0, segments: [] });
    expect((await readdir(dir)).sort()).toEqual(['write.lock', 'write.lock.takeover-0']);
    await release();
  });
});
