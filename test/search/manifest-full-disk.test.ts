/**
 * A manifest publication that fails for lack of space takes its temporary
 * file away (it had stayed on the full disk until the next writer).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { MANIFEST_FORMAT, publishManifest } from '../../src/search/manifest.js';
import { fillDisk, mountSmallDisk } from '../reliability/small-disk.js';

const disk = mountSmallDisk('1m');
if (typeof disk === 'string') console.warn(`SKIPPED: the full-disk manifest test: ${disk}`);

describe.skipIf(typeof disk === 'string')('a manifest published on a full disk', () => {
  const { dir: mount, unmount } = disk as Exclude<typeof disk, string>;
  afterEach(() => unmount());

  it('fails with ENOSPC and leaves no temporary manifest behind', async () => {
    await fillDisk(mount);
    const manifest = { formatVersion: MANIFEST_FORMAT, generation: 1, segments: [] };
    await expect(publishManifest(mount, manifest)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await readdir(mount)).toEqual(['filler']);
  });
});
