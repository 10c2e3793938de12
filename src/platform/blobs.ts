/**
 * File contents, content-addressed by SHA-256 under `<root>/sha256/ab/cd/<digest>`.
 * Uploads are streamed to `<root>/tmp` while hashed, then moved into place,
 * so a partial or rejected upload never becomes visible, and nothing is
 * buffered whole. Paths are built only from validated hex digests.
 *
 * A write refused after its bytes were stored removes them (StoredBlob.discard).
 * Contents no file revision references all the same (a crash between storing
 * and committing, or a content another writer had stored too) are collected at
 * start and periodically; a content just stored stays "pending" until its
 * writer has committed the reference or given up, and is never collected.
 * Servers sharing the directory (replicas) cannot see each other's pending
 * contents, so a content stored less than COLLECTION_GRACE_MS ago is kept too:
 * no write stays that long between storing its bytes and committing.
 */
import { createHash, randomUUID } from 'node:crypto';
import { constants, createReadStream, createWriteStream, existsSync, lstatSync, openSync, readFileSync, realpathSync, rmSync, statSync, type ReadStream } from 'node:fs';
import { link, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { makeDirectories, unwritableOr } from '../directories.js';
import { fsyncPath } from '../fsync.js';
import { OWNER_FILE } from './blob-owner.js';
import { diskFullOr } from './disk-full.js';
import { FileStorageUnavailableError } from './errors.js';

const DIGEST = /^[0-9a-f]{64}$/;

/**
 * Contents are read without following a symbolic link in their place: one could lead a download to any file
 * the server may read, outside the data directory.
 */
const READ_NOT_FOLLOWING = constants.O_RDONLY | constants.O_NOFOLLOW;

/** What sizeOf finds where a symbolic link, a directory or another special file stands in a content's place. */
export const NOT_A_REGULAR_FILE = 'not a regular file';

/** Contents younger than this are never collected. */
export const COLLECTION_GRACE_MS = 60 * 60_000;

/** Bytes `start` to `end` of a content, both included. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredBlob {
  digest: string;
  bytes: number;
  /** Call once the store references the content (or never will): until then it cannot be collected. */
  release(): void;
  /**
   * Removes the content when this write stored it first and nobody stored it again since: for a write
   * refused once its bytes were stored (the store's transaction rolled back, so nothing references them).
   * A content that was there before, or that another writer has stored again since, is left to the collector.
   */
  discard(): Promise<void>;
}

/** What tells the file this write put in place from one another writer put there later: its inode and modification time. */
interface Placed {
  ino: bigint;
  mtimeNs: bigint;
}

export class BlobStore {
  private readonly tmp: string;
  /** Digest -> writers between storing the content and committing (or dropping) their reference. */
  private readonly pending = new Map<string, number>();
  /** The store whose id the directory recorded when this server claimed it (blob-owner.ts); null before. */
  private owner: string | null = null;

  constructor(private readonly root: string) {
    this.tmp = path.join(root, 'tmp');
  }

  /**
   * Creates the directories and drops uploads a crash left half-written: all of them when this
   * server is the directory's only user, only abandoned ones when it may be shared (another server's
   * upload may be in progress).
   */
  async init(mayBeShared = false): Promise<void> {
    try {
      if (!mayBeShared) await rm(this.tmp, { recursive: true, force: true });
      makeDirectories(this.tmp);
      // Written at start, not at the first upload: a directory the server may read but not write would serve its
      // files and answer every upload 500.
      const probe = path.join(this.tmp, `start-${randomUUID()}`);
      await writeFile(probe, '');
      await rm(probe);
    } catch (error) {
      throw unwritableOr(error, 'the file contents directory', this.root);
    }
    if (mayBeShared) await this.removeAbandonedUploads(Date.now());
  }

  /**
   * Removes the uploads in tmp/ that no write has touched for COLLECTION_GRACE_MS: left half-written by
   * a server killed mid-upload, here or on another server sharing the directory. An upload in progress
   * is never one: every chunk it writes moves its file's modification time, so it would have to receive
   * nothing for an hour, while a whole request must arrive within --request-timeout (300 s by default, at most 30 minutes: config/settings.ts);
   * and once received, it leaves tmp/ within the moments its fsync and move take.
   */
  private async removeAbandonedUploads(now: number): Promise<void> {
    for (const name of await readdir(this.tmp).catch(() => [] as string[])) {
      const modified = statSync(path.join(this.tmp, name), { throwIfNoEntry: false })?.mtimeMs;
      if (modified !== undefined && now - modified > COLLECTION_GRACE_MS) await rm(path.join(this.tmp, name), { force: true });
    }
  }

  /** From now on, the directory must be the one that records `storeId` (see assertAvailable). */
  claimedBy(storeId: string): void {
    this.owner = storeId;
  }

  /**
   * Throws FileStorageUnavailableError unless the directory still records the store that claimed it: gone (a
   * shared mount dropped) or another in its place (an empty volume mounted there). Unchecked, an upload is answered
   * 500 (ENOENT on tmp/) or, into the empty directory, 201 and its content lost once the real one is back; a
   * read of a content there all along, a 404 that looks final.
   */
  async assertAvailable(): Promise<void> {
    if (this.owner === null) return;
    // Read off the main thread: a hard NFS mount that dropped hangs the call, and must not hang the server with it.
    const recorded = await readFile(path.join(this.root, OWNER_FILE), 'utf8').then((text) => text.trim(), () => null);
    this.refuseUnlessOwner(recorded);
  }

  /** assertAvailable for a caller that reads the directory synchronously already (a download's size check). */
  assertAvailableSync(): void {
    if (this.owner === null) return;
    let recorded: string | null = null;
    try {
      recorded = readFileSync(path.join(this.root, OWNER_FILE), 'utf8').trim();
    } catch {
      // absent or unreadable: not the directory claimed
    }
    this.refuseUnlessOwner(recorded);
  }

  private refuseUnlessOwner(recorded: string | null): void {
    if (recorded !== this.owner) throw new FileStorageUnavailableError();
  }

  /** Stores the stream's bytes; `isTruncated` tells after the copy whether a size limit cut the stream short. */
  async write(content: Readable, isTruncated: () => boolean, onTruncated: () => Error): Promise<StoredBlob> {
    await this.assertAvailable();
    const temporary = path.join(this.tmp, randomUUID());
    const hash = createHash('sha256');
    let bytes = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    const sink = createWriteStream(temporary, { flags: 'wx' });
    try {
      await pipeline(content, measure, sink);
      if (isTruncated()) throw onTruncated();
      // The store will reference these bytes once this returns: they must be on disk before, not just in the page cache.
      await fsyncPath(temporary);
      const digest = hash.digest('hex');
      const target = this.pathOf(digest);
      // Pending before it is visible: the collector must never take a content a writer is about to reference.
      const release = this.markPending(digest);
      let placed: Placed | null;
      try {
        makeDirectories(path.dirname(target));
        placed = await place(temporary, target);
        await fsyncPath(path.dirname(target));
      } catch (error) {
        release();
        // Out of blocks or inodes: a 507 that says so, not a 500.
        throw await diskFullOr(error, this.tmp, 'the file storage');
      }
      return { digest, bytes, release, discard: () => (placed === null ? Promise.resolve() : this.discardPlaced(target, placed)) };
    } finally {
      // A failed copy destroys the file stream, whose open (threads of their own) may end after this removal and
      // create the file again, leaving in tmp/ the upload of a body refused at once (a second file part).
      if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
      await rm(temporary, { force: true });
    }
  }

  /**
   * Removes `target` if it is still the file `placed` describes. It is first moved aside (atomic), so that
   * a writer storing the same content meanwhile puts its own file in place, which is kept (moved back
   * if it was the one moved aside).
   */
  private async discardPlaced(target: string, placed: Placed): Promise<void> {
    const aside = path.join(this.tmp, randomUUID());
    try {
      await rename(target, aside);
    } catch {
      return; // gone already
    }
    const found = await stat(aside, { bigint: true });
    if (found.ino === placed.ino && found.mtimeNs === placed.mtimeNs) await rm(aside, { force: true });
    else await rename(aside, target);
  }

  private markPending(digest: string): () => void {
    this.pending.set(digest, (this.pending.get(digest) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.pending.get(digest)! - 1;
      if (left === 0) this.pending.delete(digest);
      else this.pending.set(digest, left);
    };
  }

  /**
   * Removes contents that `referenced()` does not name, no writer holds and that are older than
   * COLLECTION_GRACE_MS; returns how many. A reference committed while the references are read
   * names a content stored moments before, which the grace keeps. Abandoned uploads go too: a
   * server killed mid-upload would otherwise leave up to --max-upload-bytes in tmp/ until a restart.
   */
  async collectGarbage(referenced: () => Promise<Set<string>>, now = Date.now()): Promise<number> {
    // Another store's directory mounted in place of this one's would lose every content this store does not reference.
    await this.assertAvailable();
    await this.removeAbandonedUploads(now);
    const stored = await this.listDigests();
    const keep = await referenced();
    let removed = 0;
    for (const digest of stored) {
      if (keep.has(digest) || this.pending.has(digest)) continue;
      const modified = statSync(this.pathOf(digest), { throwIfNoEntry: false })?.mtimeMs;
      if (modified === undefined || now - modified < COLLECTION_GRACE_MS) continue;
      rmSync(this.pathOf(digest), { force: true });
      removed++;
    }
    return removed;
  }

  private async listDigests(): Promise<string[]> {
    const root = path.join(this.root, 'sha256');
    const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
    return entries.map((entry) => path.basename(entry)).filter((name) => DIGEST.test(name));
  }

  pathOf(digest: string): string {
    if (!DIGEST.test(digest)) throw new Error(`not a SHA-256 digest: ${digest}`);
    return path.join(this.root, 'sha256', digest.slice(0, 2), digest.slice(2, 4), digest);
  }

  has(digest: string): boolean {
    return existsSync(this.pathOf(digest));
  }

  /** The stored content's size in bytes; null when it is missing, NOT_A_REGULAR_FILE when something else stands in its place. */
  sizeOf(digest: string): number | null | typeof NOT_A_REGULAR_FILE {
    const file = this.pathOf(digest);
    const found = lstatSync(file, { throwIfNoEntry: false });
    if (found === undefined) return null;
    if (!found.isFile()) return NOT_A_REGULAR_FILE;
    // Its folders (sha256/ab/cd) must be the storage's own too: a link in their place, followed, would serve a file
    // outside the data directory. The storage's root itself may be a link (a volume mounted elsewhere).
    const folder = path.dirname(file);
    return realpathSync(folder) === path.join(realpathSync(this.root), path.relative(this.root, folder)) ? found.size : NOT_A_REGULAR_FILE;
  }

  /** The content, or bytes `range.start` to `range.end` of it (both included). */
  open(digest: string, range?: ByteRange): ReadStream {
    const file = this.pathOf(digest);
    return createReadStream(file, { ...range, fd: openSync(file, READ_NOT_FOLLOWING) });
  }

  /** The first `length` bytes (fewer if the content is shorter). */
  async head(digest: string, length: number): Promise<Buffer> {
    const handle = await open(this.pathOf(digest), READ_NOT_FOLLOWING);
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }
}

/**
 * Puts the fsynced `temporary` at `target`; returns what identifies it there when this call created the
 * content, null when it was stored already. A hard link creates `target` only if absent (atomically);
 * when present, the content is renamed over it as before, which is harmless and atomic (same bytes).
 */
async function place(temporary: string, target: string): Promise<Placed | null> {
  const { ino, mtimeNs } = await stat(temporary, { bigint: true });
  try {
    await link(temporary, target);
    return { ino, mtimeNs };
  } catch {
    // Any failure of the link (EEXIST, or a file system without hard links) is taken for "stored already": to claim a
    // content as this call's wrongly could let a refused write discard another file's, while a content not claimed is
    // only left to the collection of unreferenced contents.
    await rename(temporary, target);
    return null;
  }
}
