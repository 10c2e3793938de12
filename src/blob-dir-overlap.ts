/**
 * A `--blob-dir` that shares folders with the data directory's store or with the served index is refused at
 * start. The server writes its own files into the file contents directory (`tmp/`, `sha256/`, the store's id)
 * and removes uploads it finds half-written there; the store and the index are written by their own code. The
 * data directory itself as `--blob-dir` is refused too, not taken with a warning that calls it "empty".
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, givenAs, type Config } from './config.js';
import { embeddedStoreDirectory } from './platform/index.js';

export function refuseOverlappingBlobDir(config: Config): void {
  if (config.blobDir === null) return;
  const blobDir = realFolder(config.blobDir);
  const neighbours = [
    { folder: realFolder(config.data), named: `the data directory (${givenAs(config, 'data')})`, refusedInside: false },
    // The embedded store's folder, used when the store is not a PostgreSQL database.
    ...(config.platformStore === 'lmdb'
      ? [{ folder: realFolder(embeddedStoreDirectory(config.data)), named: `the platform store's folder under the data directory`, refusedInside: true }]
      : []),
    {
      folder: realFolder(config.index),
      named: config.indexIsDefault ? 'the default index under the data directory' : `the index (${givenAs(config, 'index')})`,
      refusedInside: true,
    },
  ];
  for (const { folder, named, refusedInside } of neighbours) {
    const holds = isWithin(folder, blobDir);
    if (holds || (refusedInside && isWithin(blobDir, folder))) {
      throw new ConfigError(
        `${givenAs(config, 'blobDir')} ${blobDir === folder ? 'is' : holds ? 'holds' : 'is inside'} ${named}: file contents need a folder of their own ` +
          '(the default is platform/files under the data directory)',
      );
    }
  }
}

/** Whether `inner` is `outer` or inside it. */
function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** The folder's real path (a link to the data directory is the data directory), through its nearest existing parent when it is yet to be made. */
function realFolder(folder: string): string {
  const absolute = path.resolve(folder);
  if (existsSync(absolute)) return realpathSync.native(absolute);
  const parent = path.dirname(absolute);
  return parent === absolute ? absolute : path.join(realFolder(parent), path.basename(absolute));
}
