/** A download: entries resolved now (errors before any byte), bytes produced later as the client reads. */
import type { Readable } from 'node:stream';
import type { Identity } from '../platform/identities.ts';
import { entityView } from '../platform/metadata.ts';
import { renderText } from '../platform/rendering.ts';
import type { StoredArchive } from './archives.ts';
import { SAMPLE_BYTES, isAlreadyCompressedType, sampleCompresses } from './compressibility.ts';
import { type ResolveDeps, resolveForDownload } from './resolve.ts';
import { zipStream } from './zip.ts';

export interface Download {
  archiveId: string;
  entryCount: number;
  stream(onError: (error: Error) => void): Readable;
}

export function prepareDownload(archive: StoredArchive, identity: Identity, ignoreNotFound: boolean, deps: ResolveDeps): Download {
  const entries = resolveForDownload(archive, identity, ignoreNotFound, deps);
  return {
    archiveId: archive.id,
    entryCount: entries.length,
    stream: (onError) =>
      zipStream(
        entries,
        {
          render: async (entry) => Buffer.from(await renderText(entityView(entry.state, entry.project, deps.baseUri), entry.format!)),
          open: (entry) => deps.files.content(entry.state),
          compressible: async (entry) =>
            !isAlreadyCompressedType(entry.state.file!.mediaType) && sampleCompresses(await deps.files.contentHead(entry.state, SAMPLE_BYTES)),
        },
        onError,
      ),
  };
}
