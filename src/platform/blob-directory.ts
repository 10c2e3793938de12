/**
 * The file contents directory at a start: claimed for the platform store and readied (blob-owner.ts,
 * BlobStore.init), then the contents no file references collected, at start and every
 * BLOB_COLLECTION_INTERVAL_MS.
 */
import { type Claim, OWNER_FILE, claimBlobDirectory } from './blob-owner.js';
import type { BlobStore } from './blobs.js';
import type { FileService } from './files.js';
import type { Logger } from './index.js';
import { logPeriodicFailure } from './periodic-failure.js';
import { storeIdOf } from './store-id.js';
import type { Store } from './store/store.js';

/** How often contents no file references are collected (besides once at start). */
const BLOB_COLLECTION_INTERVAL_MS = 60 * 60_000;

/**
 * Claims `root` for `store` and readies `blobs` there; `blobDir` is the --blob-dir setting (undefined, null or empty
 * when the directory is the data directory's own).
 */
export async function claimFileContentsDirectory(store: Store, blobs: BlobStore, root: string, blobDir: string | null | undefined): Promise<Claim> {
  // Before init: a directory of another store's servers is refused before anything in it is touched.
  const { id: storeId, made: storeIsNew } = await storeIdOf(store);
  const given = Boolean(blobDir);
  const claim = await claimBlobDirectory(root, storeId, given ? '--blob-dir (BLOB_DIR)' : 'the file contents directory', storeIsNew);
  blobs.claimedBy(storeId);
  // A directory given with --blob-dir may be shared by replicas of this store, whose uploads in progress are kept.
  await blobs.init(given);
  return claim;
}

/**
 * Collects the contents no file references, at start and then every BLOB_COLLECTION_INTERVAL_MS; none in a
 * directory of contents adopted at this start (they may be another store's: the next start collects them).
 * Gives what stops the collection.
 */
export async function startBlobCollection(blobs: BlobStore, files: FileService, claim: Claim, root: string, logger: Logger): Promise<() => void> {
  if (claim.adoptedContents) {
    logger.warn(
      `${root} held file contents and named no store: it is now this store's (${OWNER_FILE}). Contents no file here references ` +
        'are collected from the next start on, none by this process: if servers of another store use this directory, give each store its own.',
    );
    return () => undefined;
  }
  // A new, empty directory beside a store holding files (a mistyped --blob-dir) is taken over with a warning:
  // in silence, every file would then answer 404 with no word why.
  if (claim.claimedNow && (await files.referencedDigests()).size > 0) {
    logger.warn(
      `${root} held no file contents and is now this store's file contents directory, while the store holds files: their contents are not here, ` +
        'so they answer 404 FileContentNotFound. If they were uploaded to another directory, stop the server and name that one with --blob-dir.',
    );
  }
  const collect = async () => {
    const removed = await blobs.collectGarbage(() => files.referencedDigests());
    if (removed > 0) logger.info(`removed ${removed} stored file content(s) no file references`);
  };
  await collect();
  const timer = setInterval(() => void collect().catch((error) => logPeriodicFailure(logger, 'collecting unreferenced file contents', error)), BLOB_COLLECTION_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
