/**
 * The positional read both on-demand readers of an index file use (stored
 * fragments, paged postings): `length` bytes at `position` of the file into
 * `target` at `at`, looping over short reads.
 */
import { readSync } from 'node:fs';

/** Reads all `length` bytes; returns -1, or the file position where the file ended before them. */
export function readExactly(fd: number, target: Uint8Array, at: number, length: number, position: number): number {
  for (let done = 0; done < length; ) {
    const read = readSync(fd, target, at + done, length - done, position + done);
    if (read === 0) return position + done;
    done += read;
  }
  return -1;
}
