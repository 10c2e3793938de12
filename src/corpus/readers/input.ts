/**
 * Raw input access shared by all readers: the bytes of a file, transparently
 * gunzipped (MEDLINE baseline files are distributed as .xml.gz), with the
 * on-disk bytes reported for progress.
 */
import { isUtf8 } from 'node:buffer';
import { constants, type Stats } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';

/**
 * Bytes read at a time (bench:peers' corpus reader reads its files the same
 * way). At 64 KiB, a chunk with any non-ASCII character
 * decodes (readText) to a two-byte string over V8's 128 KiB limit for ordinary
 * heap objects, and every such string lands in fresh large-object pages, a
 * page fault per 4 KiB; 16 KiB chunks stay in the young generation's reused
 * pages (decoding and splitting the 900 MB bench:peers corpus into lines:
 * 10.1-10.6 s at 64 KiB, 2.6 s at 16 KiB).
 */
export const READ_CHUNK_BYTES = 16 * 1024;

/**
 * Where the kernel keeps its pseudo-files: they report a size of 0 and may never end (/proc/kmsg
 * waits for the next kernel message), so a run reading one hangs holding the index's write lock.
 */
const PSEUDO_FILE_SYSTEMS = ['/proc', '/sys'];

/** What a reader needs of an input, said to whoever gave something else. */
const REGULAR_FILES_ONLY = 'inputs must be regular files (write a stream to a file first, and give that file)';

type FileType = Pick<Stats, 'isFile' | 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>;

/**
 * Why a path of type `info`, whose real path is `realPath`, cannot be read as input, or null for a
 * regular file or a directory. Readers open an input twice (detection, then reading) and read it
 * at positions, which a pipe, socket or device does not allow. The type is checked first: a pipe
 * (/dev/stdin, <(...)) has no real path to resolve, and `realPath` is not looked at for one.
 */
export function notAnInput(info: FileType, realPath: string): string | null {
  if (!info.isFile() && !info.isDirectory()) return `${fileType(info)}, not a regular file`;
  const pseudo = PSEUDO_FILE_SYSTEMS.find((root) => realPath === root || realPath.startsWith(root + path.sep));
  return pseudo === undefined ? null : `under ${pseudo}, whose pseudo-files can go on forever`;
}

function fileType(info: FileType): string {
  if (info.isFIFO()) return 'a pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'neither a file nor a directory';
}

/** Raised for an input that is no regular file (given as an input, or opened by a reader), before a byte of it is read. */
export class NotAnInputError extends Error {
  constructor(file: string, problem: string) {
    super(`${file} is ${problem}: ${REGULAR_FILES_ONLY}`);
  }
}

/**
 * `file` opened for reading, refused unless it is a regular file. Opened without blocking: opening
 * a named pipe for reading would otherwise wait for a writer (O_NONBLOCK changes nothing for a
 * regular file's reads).
 */
async function openRegularFile(file: string): Promise<FileHandle> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    // The open file's type, not the path's: the path may have been replaced since it was checked.
    const info = await handle.stat();
    const problem = info.isDirectory() ? 'a directory' : notAnInput(info, info.isFile() ? await realpath(file) : file);
    if (problem !== null) throw new NotAnInputError(file, problem);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function isGzipped(handle: FileHandle): Promise<boolean> {
  const magic = Buffer.alloc(2);
  const { bytesRead } = await handle.read(magic, 0, 2, 0);
  return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
}

/** Whether `file` is gzipped (the readers gunzip it as they read). */
export async function isGzippedFile(file: string): Promise<boolean> {
  const handle = await openRegularFile(file);
  try {
    return await isGzipped(handle);
  } finally {
    await handle.close();
  }
}

/** The content of `file` as byte chunks; `onBytes` gets the on-disk size of each chunk read. */
export async function* readChunks(
  file: string,
  onBytes?: (bytesRead: number) => void,
): AsyncGenerator<Buffer> {
  const handle = await openRegularFile(file);
  let gzipped;
  try {
    gzipped = await isGzipped(handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
  // One opening for the check and the reading; the stream closes it when it ends or is destroyed (a reader stopping early).
  const raw = handle.createReadStream({ highWaterMark: READ_CHUNK_BYTES, start: 0 });
  if (!gzipped) {
    for await (const chunk of raw) {
      onBytes?.((chunk as Buffer).length);
      yield chunk as Buffer;
    }
    return;
  }
  // Progress counts compressed bytes, so it still adds up to the file size.
  raw.on('data', (chunk: string | Buffer) => onBytes?.(chunk.length));
  const content = pipeline(raw, createGunzip(), () => {
    // Errors surface through the iteration below; nothing to do here.
  });
  try {
    for await (const chunk of content) yield chunk as Buffer;
  } catch (error) {
    if (isFileSystemError(error)) throw error;
    throw new BrokenGzipError((error as Error).message);
  }
}

/** Raised where a gzipped file's compressed data stops making sense (cut short, damaged), once the text before has been given. */
export class BrokenGzipError extends Error {
  constructor(zlibMessage: string) {
    // zlib's own words ("unexpected end of file") do not say which layer failed.
    super(`the gzip data is damaged or cut short (${zlibMessage})`);
  }
}

/** An error of the file system (missing, unreadable file) rather than of the file's content. */
export function isFileSystemError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** What a reader reports for text that is not valid UTF-8, rather than index its bytes as U+FFFD. */
export const INVALID_UTF8 = 'not valid UTF-8 (input files are read as UTF-8)';

/** Raised by readText where the bytes stop being UTF-8, once the text before them has been given. */
export class InvalidUtf8Error extends Error {
  constructor(file: string) {
    super(`${file} is ${INVALID_UTF8}`);
  }
}

/** Opens some files; the parsers would take it for content. */
export const BYTE_ORDER_MARK = '\ufeff';
const REPLACEMENT_CHARACTER = '\ufffd';

/**
 * The content of `file` as UTF-8 text, decoded across chunk boundaries. Where the bytes stop
 * being UTF-8, the text before them is given and then InvalidUtf8Error is raised: a decoder that
 * went on would hand the parser U+FFFD in their place, and the file would be indexed as if it
 * said that.
 */
export async function* readText(file: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<string> {
  let carried: Buffer = Buffer.alloc(0);
  let first = true;
  for await (const chunk of readChunks(file, onBytes)) {
    const bytes = carried.length === 0 ? chunk : Buffer.concat([carried, chunk]);
    const end = completeCharactersEnd(bytes);
    carried = bytes.subarray(end);
    const whole = bytes.subarray(0, end);
    const valid = isUtf8(whole);
    let text = valid ? whole.toString('utf8') : textBeforeInvalid(whole);
    if (first && text.startsWith(BYTE_ORDER_MARK)) text = text.slice(1);
    first = false;
    if (text.length > 0) yield text;
    if (!valid) throw new InvalidUtf8Error(file);
  }
  // A character cut off by the end of the file.
  if (carried.length > 0) throw new InvalidUtf8Error(file);
}

/** Where the last whole character of `bytes` ends: a character cut by the chunk's end waits for the next chunk. */
function completeCharactersEnd(bytes: Buffer): number {
  for (let at = bytes.length - 1; at >= Math.max(0, bytes.length - 3); at--) {
    const byte = bytes[at]!;
    if (byte < 0x80) return bytes.length;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return at + length > bytes.length ? at : bytes.length;
    }
  }
  // Continuation bytes only: whether they belong to anything is the validation's to say.
  return bytes.length;
}

/** The text of `bytes` up to their first invalid sequence: the first U+FFFD the decoder put in rather than read. */
function textBeforeInvalid(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  let byteOffset = 0;
  let charactersCounted = 0;
  for (let at = text.indexOf(REPLACEMENT_CHARACTER); at !== -1; at = text.indexOf(REPLACEMENT_CHARACTER, at + 1)) {
    byteOffset += Buffer.byteLength(text.slice(charactersCounted, at));
    const written = bytes[byteOffset] === 0xef && bytes[byteOffset + 1] === 0xbf && bytes[byteOffset + 2] === 0xbd;
    if (!written) return text.slice(0, at);
    byteOffset += 3;
    charactersCounted = at + 1;
  }
  return text;
}
