/**
 * A look at the embedded store's `data.mdb` before LMDB maps it. LMDB trusts
 * its file: another program's file, or one cut short, makes the native code
 * read outside the mapping and the process dies of a segmentation fault or a
 * bus error, with no line said. Its two meta pages are checked here instead,
 * so such a file is a refusal naming the file and the setting. Pages past the
 * meta pages carry no checksum; damage inside them stays LMDB's to meet.
 *
 * The layout is that of the LMDB lmdb-js builds (a 24-byte page header, then
 * the meta record); test/platform/store/lmdb-header.test.ts checks it against
 * a store the library writes, so an upgrade that moved it would be seen.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';

const MAGIC = 0xbeefc0de;
const PAGE_HEADER_BYTES = 24;
const META = {
  magic: PAGE_HEADER_BYTES,
  /** The free-page tree's `md_pad`, where LMDB keeps the page size. */
  pageSize: PAGE_HEADER_BYTES + 24,
  lastPage: PAGE_HEADER_BYTES + 120,
  transaction: PAGE_HEADER_BYTES + 128,
  end: PAGE_HEADER_BYTES + 136,
};

interface MetaPage {
  pageSize: number;
  lastPage: bigint;
  transaction: bigint;
}

function readMeta(handle: number, offset: number): MetaPage | null {
  const bytes = Buffer.alloc(META.end);
  if (readSync(handle, bytes, 0, META.end, offset) < META.end) return null;
  if (bytes.readUInt32LE(META.magic) !== MAGIC) return null;
  return {
    pageSize: bytes.readUInt32LE(META.pageSize),
    lastPage: bytes.readBigUInt64LE(META.lastPage),
    transaction: bytes.readBigUInt64LE(META.transaction),
  };
}

const isPageSize = (n: number) => n >= 512 && n <= 65536 && (n & (n - 1)) === 0;

/** Why `<directory>/data.mdb` cannot be an LMDB store, or null when it looks like one (or is absent or empty: LMDB starts a new one). */
export function lmdbFileProblem(directory: string): string | null {
  const file = path.join(directory, 'data.mdb');
  let handle: number;
  try {
    handle = openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? null : `cannot read ${file}: ${(error as Error).message}`;
  }
  try {
    const { size } = fstatSync(handle);
    if (size === 0) return null;
    const first = readMeta(handle, 0);
    if (first === null || !isPageSize(first.pageSize)) return `${file} is not an LMDB database (another program's file, or damaged)`;
    const second = readMeta(handle, first.pageSize);
    if (second === null) return `${file} is not a whole LMDB database: its second meta page is missing or damaged`;
    // LMDB reads the meta page of the later transaction; the pages it names must all be in the file.
    const latest = second.transaction > first.transaction ? second : first;
    const needed = (latest.lastPage + 1n) * BigInt(first.pageSize);
    if (needed > BigInt(size)) return `${file} is cut short: its last transaction needs ${needed} bytes, the file holds ${size}`;
    return null;
  } finally {
    closeSync(handle);
  }
}

/** Throws, naming the setting, when `<directory>/data.mdb` cannot be an LMDB store (lmdbFileProblem). */
export function refuseForeignLmdbFile(directory: string): void {
  const problem = lmdbFileProblem(directory);
  if (problem === null) return;
  throw new Error(`cannot open the platform store under --data (DATA_DIR): ${problem}. Restore it from a backup, or move it away to start an empty store`);
}
