/**
 * Streams resolved entries as a ZIP with yazl, in order. Entries are handed
 * to yazl one ahead of the one being written: the next file is sampled and
 * added while the current one streams, a file is opened only when yazl
 * reaches it, and a resource is serialised only then. So one entry is in
 * flight at a time and memory stays bounded whatever the archive size.
 * yazl checksums every chunk on this thread: rendered entries arrive in
 * small slices, so no single checksum holds the event loop long.
 * yazl switches to ZIP64 by itself when sizes or the entry count need it.
 */
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { ResolvedEntry } from './resolve.js';

export interface ZipSources {
  /** The serialised resource, in slices. */
  render(entry: ResolvedEntry): Promise<Readable>;
  /** The file's content. */
  open(entry: ResolvedEntry): Readable;
  /** Whether the file's content is worth deflating. */
  compressible(entry: ResolvedEntry): Promise<boolean>;
}

export function zipStream(entries: readonly ResolvedEntry[], sources: ZipSources, onError: (error: Error) => void): Readable {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  // A failure after the headers are sent can only cut the body short: the client sees a truncated ZIP.
  const fail = (error: Error) => {
    onError(error);
    output.destroy(error);
  };
  zip.on('error', fail);
  // If the client goes away, the entry being read must not keep its file open.
  const inFlight = new Set<Readable>();
  const track = (stream: Readable) => {
    inFlight.add(stream);
    stream.once('close', () => inFlight.delete(stream));
    return stream;
  };
  output.once('close', () => {
    for (const stream of inFlight) stream.destroy();
  });

  let next = 0;
  const addNext = async (): Promise<void> => {
    if (output.destroyed) return;
    if (next === entries.length) return zip.end();
    const entry = entries[next++]!;
    const mtime = new Date(entry.state.updatedAt);
    const file = entry.state.file;
    if (entry.format === null && file) {
      const options = { mtime, size: file.bytes, compress: await sources.compressible(entry) };
      zip.addReadStreamLazy(entry.name, options, (done) => {
        let content: Readable;
        try {
          content = sources.open(entry);
        } catch (error) {
          return fail(error as Error);
        }
        done(null, track(content).once('error', fail));
        addNext().catch(fail);
      });
    } else {
      zip.addReadStreamLazy(entry.name, { mtime }, (done) => {
        sources.render(entry).then((content) => {
          // The client left while the entry was rendering: its slices are dropped.
          if (output.destroyed) return void content.destroy();
          done(null, track(content).once('error', fail));
        }, fail);
        addNext().catch(fail);
      });
    }
  };
  addNext().catch(fail);
  return output;
}
