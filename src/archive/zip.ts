/**
 * Streams resolved entries as a ZIP with yazl. Entries are added lazily:
 * a file is opened only when yazl reaches it, and a resource is serialised
 * only then, so at any time one entry is in flight and memory stays bounded
 * whatever the archive size. yazl switches to ZIP64 by itself when sizes or
 * the entry count need it.
 */
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { ResolvedEntry } from './resolve.ts';

export interface ZipSources {
  /** The serialised resource. */
  render(entry: ResolvedEntry): Promise<Buffer>;
  /** The file's content. */
  open(entry: ResolvedEntry): Readable;
}

/** Media types whose content is already compressed: deflating them again costs time and gains nothing. */
const ALREADY_COMPRESSED =
  /^(image\/(?!svg|bmp|x-portable|tiff)|video\/|audio\/(?!wav|x-wav)|application\/(zip|gzip|x-gzip|x-bzip2|x-xz|zstd|x-7z-compressed|x-rar-compressed|vnd\.rar))/;

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
  for (const entry of entries) {
    const mtime = new Date(entry.state.updatedAt);
    const file = entry.state.file;
    if (entry.format === null && file) {
      const options = { mtime, size: file.bytes, compress: !ALREADY_COMPRESSED.test(file.mediaType) };
      zip.addReadStreamLazy(entry.name, options, (done) => done(null, track(sources.open(entry)).once('error', fail)));
    } else {
      zip.addReadStreamLazy(entry.name, { mtime }, (done) => {
        sources.render(entry).then((bytes) => done(null, track(Readable.from([bytes]))), fail);
      });
    }
  }
  zip.end();
  return output;
}
