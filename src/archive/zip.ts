/**
 * Streams resolved entries as a ZIP (zip-writer.ts), in order, one entry in flight at a time:
 * a file is sampled and opened only when the writer reaches it, and a resource is serialised
 * only then. So memory stays bounded whatever the archive size.
 * Compressible files and resources are deflated. Other files are stored, and read twice: a
 * first read takes their CRC-32, which a stored entry's header must carry (front-to-back readers
 * need it there), and the second is sent; a file whose bytes differ between the two cuts the
 * download, as a disk error does. A file's content is also checked against its SHA-256 as it is
 * read (FileService.content): a stored entry's by its first read, so content changed on disk is
 * refused before its entry begins; a deflated entry's as it streams, cut before the entry ends. A
 * stored entry's second read is not checked again: the first read's CRC-32 covers it. Checksums
 * run on this thread, slice by slice: files arrive in 64 KiB reads and rendered entries in 64 KiB
 * slices, so none holds the event loop long.
 */
import type { Readable } from 'node:stream';
import { rejections } from '../platform/errors.js';
import type { ResolvedEntry, ResolvedFile, ResolvedResource } from './resolve.js';
import { ZipWriter, checksumOf, deflatedMayReach4GiB } from './zip-writer.js';

interface ZipSources {
  /** The serialised resource, in slices. */
  render(entry: ResolvedResource): Promise<Readable>;
  /** The file's content; `checked`, against its SHA-256 as it streams, failing before its last chunk when they differ. */
  open(entry: ResolvedFile, read: { checked: boolean }): Readable;
  /** Whether the file's content is worth deflating. */
  compressible(entry: ResolvedFile): Promise<boolean>;
}

export function zipStream(entries: readonly ResolvedEntry[], sources: ZipSources, onError: (error: Error) => void): Readable {
  const zip = new ZipWriter();
  const output = zip.output;
  // A failure after the headers are sent can only cut the body short: the client sees a truncated ZIP.
  // Once the client has gone, what follows (its entry cut short) is no failure of the download.
  const fail = (error: Error) => {
    if (output.destroyed) return;
    onError(error);
    output.destroy(error);
  };
  // If the client goes away, the entry being read must not keep its file open.
  const inFlight = new Set<Readable>();
  const track = (stream: Readable) => {
    inFlight.add(stream);
    stream.once('close', () => inFlight.delete(stream));
    // Its error reaches the writer when it reads the stream; until then, this keeps an early one from going unhandled.
    stream.on('error', () => {});
    return stream;
  };
  output.once('close', () => {
    for (const stream of inFlight) stream.destroy();
  });

  const write = async (entry: ResolvedEntry): Promise<void> => {
    const info = { name: entry.name, modified: new Date(entry.state.updatedAt) };
    if (entry.kind === 'file') {
      const { file } = entry.state;
      if (await sources.compressible(entry)) {
        return zip.addDeflated(info, track(sources.open(entry, { checked: true })), { exactBytes: file.bytes, mayReach4GiB: deflatedMayReach4GiB(file.bytes) });
      }
      const expected = await checksumOf(track(sources.open(entry, { checked: true })));
      // Typed as a download of the file answers it (404 FileContentNotFound), so an archive whose first entry it is
      // (nothing sent yet) gets that answer rather than a 500.
      if (expected.bytes !== file.bytes) throw rejections.fileContentDamaged(entry.state.id, entry.state.project, `${expected.bytes} bytes where ${file.bytes} were stored`);
      return zip.addStored(info, track(sources.open(entry, { checked: false })), expected);
    }
    const content = await sources.render(entry);
    // The client left while the entry was rendering: its slices are dropped.
    if (output.destroyed) return void content.destroy();
    // A rendered resource is bounded far below 4 GiB (64 MiB, RepresentationTooLarge).
    return zip.addDeflated(info, track(content), { exactBytes: null, mayReach4GiB: false });
  };
  (async () => {
    for (const entry of entries) {
      if (output.destroyed) return;
      await write(entry);
    }
    await zip.end();
  })().catch(fail);
  return output;
}
