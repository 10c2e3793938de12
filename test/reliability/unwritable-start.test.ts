/**
 * A start where the system refuses to write the platform store or the file contents directory (here a read-only
 * mount; an immutable flag or another owner do the same) names what it could not write and what to check. It had
 * said "EPERM: operation not permitted, rmdir '…/files/tmp'", or of the store "Operation not permitted: Attempting to
 * open main database file", naming no file. Each directory is a tmpfs mounted for the test, which needs root.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../platform/helpers.js';
import { mountSmallDisk } from './small-disk.js';

// Room for the new store's 8 MiB reserve.
const store = mountSmallDisk('16m');
const blobs = mountSmallDisk('1m');
const skipped = typeof store === 'string' ? store : typeof blobs === 'string' ? blobs : null;
if (skipped !== null) console.warn(`SKIPPED: the unwritable-start test: ${skipped}`);

describe.skipIf(skipped !== null)('a start that may not write where it must', () => {
  const storeDisk = store as Exclude<typeof store, string>;
  const blobDisk = blobs as Exclude<typeof blobs, string>;
  const readOnly = (dir: string) => execFileSync('mount', ['-o', 'remount,ro', dir]);
  // The data directory itself stays writable (the test writes its auth file there): its store is a link to the mount.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'unwritable-data-'));
  afterAll(() => {
    storeDisk.unmount();
    blobDisk.unmount();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('names the file contents directory, then the platform store, and what to check', async () => {
    const blobDir = path.join(blobDisk.dir, 'blobs');
    mkdirSync(path.join(dataDir, 'platform'));
    mkdirSync(path.join(storeDisk.dir, 'store'));
    symlinkSync(path.join(storeDisk.dir, 'store'), path.join(dataDir, 'platform', 'store'));
    await (await startServer({ dataDir, blobDir })).stop();

    readOnly(blobDisk.dir);
    await expect(startServer({ dataDir, blobDir })).rejects.toThrow(
      new RegExp(`^cannot write the file contents directory ${blobDir} \\(EROFS: .*\\): the server's user must be able to write there; check the owner and permissions, immutable flags \\(lsattr\\) and read-only mounts$`),
    );
    readOnly(storeDisk.dir);
    await expect(startServer({ dataDir, blobDir })).rejects.toThrow(new RegExp(`^cannot write the platform store ${path.join(dataDir, 'platform', 'store')} \\(.*\\): the server's user must`));
  });
});
