/** Writes a whole buffer through a file handle, however large. */
import type { FileHandle } from 'node:fs/promises';

/**
 * Writes all of `bytes` at the file's current position. One write moves at most about 2 GiB on Linux
 * (0x7ffff000 bytes) and may move less, and `FileHandle.write` reports how much it moved without writing
 * the rest: an array past that size would be cut short, silently, until the file's checksum refused it.
 */
export async function writeWhole(handle: Pick<FileHandle, 'write'>, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.byteLength; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.byteLength - done);
    if (bytesWritten === 0) throw new Error(`a write moved no byte, ${bytes.byteLength - done} of ${bytes.byteLength} left`);
    done += bytesWritten;
  }
}
