/** A named pipe given as --delete-file, as `--delete-file <(psql ...)` gives: an ingest reading it waits for its ids as it starts (signal tests). */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

export function makePipe(file: string): void {
  execFileSync('mkfifo', [file]);
}

/**
 * The pipe's writing end, once `reader` has opened the pipe to read; undefined when the reader ended first.
 * Opened without waiting, the writing end is refused (ENXIO) until then. The caller closes it.
 */
export async function openWhenRead(file: string, reader: ChildProcess): Promise<FileHandle | undefined> {
  while (reader.exitCode === null && reader.signalCode === null) {
    const writer = await open(file, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
    if (writer !== undefined) return writer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}
