/**
 * A writer that finds the disk already full fails at its first write, the
 * write lock's pid file: it says so for the index, as it does when the disk
 * fills while it writes segments (ENOSPC alone named neither the index nor
 * that nothing changed), and leaves the index as it was.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IndexWriter } from '../../src/search/index-writer.js';
import { mergeAll } from '../../src/search/merge.js';
import { fillDisk, mountSmallDisk } from '../reliability/small-disk.js';
import { article, writeIndex } from '../search/helpers.js';

const disk = mountSmallDisk('2m');
if (typeof disk === 'string') console.warn(`SKIPPED: the full-disk write lock test: ${disk}`);

describe.skipIf(typeof disk === 'string')('a writer on a disk already full', () => {
  const { dir: mount, unmount } = disk as Exclude<typeof disk, string>;
  afterEach(() => unmount());

  it('names the index and says it is unchanged, for ingestion and merging alike', async () => {
    const dir = path.join(mount, 'index');
    await writeIndex(dir, [article('a', ['first text'])]);
    await writeIndex(dir, [article('b', ['second text'])]);
    await fillDisk(mount);
    const before = { files: (await readdir(dir)).sort(), manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8') };

    const said = `no space left on device (no free block, or no free inode: \`df -h\` and \`df -i\` tell which) writing the index ${dir}: the index is unchanged (generation 2); free space and run again`;
    await expect(IndexWriter.open(dir)).rejects.toThrow(said);
    await expect(mergeAll(dir)).rejects.toThrow(said);
    expect({ files: (await readdir(dir)).sort(), manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8') }).toEqual(before);
  });
});
