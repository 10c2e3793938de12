/**
 * Which platform store a file contents' directory belongs to. The collector (blobs.ts) removes contents no
 * file of its store references, so a directory two stores write to loses each one's uploads to the other's
 * collection: servers with their own `--data` given one `--blob-dir` would, and answer 404 for files they
 * had acknowledged. The directory therefore records its store's id (store-id.ts) in OWNER_FILE at the first start,
 * and a server of another store is refused there. Replicas of one PostgreSQL store share the id, and so the
 * directory. A copy of a store (a restored dump, a copied data directory) carries its id: it needs a
 * directory of its own all the same.
 */
import { randomUUID } from 'node:crypto';
import { link, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeDirectories } from '../directories.js';
import { fsyncPath } from '../fsync.js';

export const OWNER_FILE = 'platform-store-id';

export interface Claim {
  /**
   * The directory had no owner yet but held contents: an older version's, or another store's whose servers
   * predate the record. Nothing tells which, so this process collects none of them.
   */
  adoptedContents: boolean;
  /** The directory named no store before this start: it was new (or emptied), or an older version's. */
  claimedNow: boolean;
}

/** Store ids are UUIDs (store-id.ts): OWNER_FILE holding nothing, or anything but letters, digits and dashes, is damaged. */
const STORE_ID = /^[\w-]{1,100}$/;

/**
 * Takes `root` for the store `storeId`, or throws when another store's servers use it; `named` says which setting gave
 * it, `storeIsNew` that the store was made at this start (so a directory of another store may be this one's, lost).
 */
export async function claimBlobDirectory(root: string, storeId: string, named: string, storeIsNew: boolean): Promise<Claim> {
  makeDirectories(root);
  const owner = path.join(root, OWNER_FILE);
  let recorded = await readOwner(owner);
  let adoptedContents = false;
  const claimedNow = recorded === null;
  if (recorded === null) {
    adoptedContents = await holdsContents(root);
    // Written aside then linked: two servers recording at once cannot both win, and the loser reads the winner's.
    const aside = `${owner}.${randomUUID()}`;
    await writeFile(aside, `${storeId}\n`, { flag: 'wx' });
    try {
      await fsyncPath(aside);
      await link(aside, owner).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      await fsyncPath(root);
    } finally {
      await rm(aside, { force: true });
    }
    recorded = await readOwner(owner);
  }
  if (recorded === null || !STORE_ID.test(recorded)) {
    // Its bytes are not quoted: a damaged file wrote NULs and broken UTF-8 to the terminal.
    throw new Error(
      `${owner} is damaged: it holds no store id. If ${root} is this server's file contents directory, remove ${owner} and start again: ` +
        'the directory is then adopted, its contents kept.',
    );
  }
  if (recorded !== storeId) {
    // A store made at this start beside a directory of another: often this store's own file, lost or removed.
    const lost = storeIsNew
      ? " This server's store was made at this start (there was none): if its file (data.mdb) was removed or lost, restore it from a backup instead of starting anew."
      : '';
    throw new Error(
      `${named} ${root} holds the file contents of another platform store (${owner} names store ${recorded}; this server's store is ${storeId}): ` +
        'each store needs a directory of its own (give this one --blob-dir / BLOB_DIR), and only replicas of one PostgreSQL store share one; ' +
        "a data directory moved from LMDB to PostgreSQL keeps the LMDB store's contents there. " +
        `Only if that other store and its files are gone for good, remove ${owner}: every content no file of this store references is then collected.${lost}`,
    );
  }
  return { adoptedContents, claimedNow };
}

async function readOwner(owner: string): Promise<string | null> {
  try {
    return (await readFile(owner, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function holdsContents(root: string): Promise<boolean> {
  const folders = await readdir(path.join(root, 'sha256')).catch(() => [] as string[]);
  return folders.length > 0;
}
