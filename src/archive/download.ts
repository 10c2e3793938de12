/**
 * A download: entries resolved now (errors before any byte), bytes produced
 * later as the client reads. Resources are rendered on the platform's render
 * threads, one at a time, each payload read again (by its pinned revision)
 * when its entry is written, once for entries of one revision that follow
 * each other (revision-reads.ts); what one archive may render is bounded twice:
 * before the first byte by the size of the resources' payloads, and while
 * streaming by the bytes actually rendered (past that the download is cut).
 */
import type { Readable } from 'node:stream';
import { PlatformError } from '../platform/errors.js';
import type { Identity } from '../platform/identities.js';
import { entityView } from '../platform/metadata.js';
import type { RenderCaller } from '../platform/render-queue.js';
import type { Renderer } from '../platform/renderer.js';
import type { ResourceService } from '../platform/resources.js';
import type { StoredArchive } from './archives.js';
import { SAMPLE_BYTES, isAlreadyCompressedType, sampleCompresses } from './compressibility.js';
import { type ResolveDeps, type ResolvedEntry, resolveForDownload } from './resolve.js';
import { revisionReads } from './revision-reads.js';
import { zipStream } from './zip.js';

export interface Download {
  archiveId: string;
  entryCount: number;
  /** The ZIP; what it holds is let go when it closes. */
  stream(onError: (error: Error) => void): Readable;
  /** Lets go what the download holds when its stream is never asked for (HEAD). */
  abandon(): void;
}

export interface RenderBounds {
  /** Total payload size of the resources one archive may render (checked before the first byte). */
  maxSourceBytes: number;
  /** Total bytes one archive may render (checked while streaming). */
  maxRenderedBytes: number;
}

export const DEFAULT_RENDER_BOUNDS: RenderBounds = { maxSourceBytes: 128 * 1024 ** 2, maxRenderedBytes: 1024 ** 3 };

export async function prepareDownload(
  archive: StoredArchive,
  identity: Identity,
  ignoreNotFound: boolean,
  deps: ResolveDeps & { resources: ResourceService },
  renderer: Renderer,
  bounds: RenderBounds,
  caller: RenderCaller,
): Promise<Download> {
  // Entries are read when pinned, then again when streamed: the literature's from one index generation throughout,
  // held until the stream closes (ended, failed or cut) or the download is abandoned.
  const held = deps.resources.heldLookup();
  const resources = { lookup: held.lookup, expandId: deps.resources.expandId.bind(deps.resources) };
  let sourceBytes = 0;
  let entries: ResolvedEntry[];
  try {
    // Counted as entries are read: every revision read holds its payload, so a total checked at the end would let
    // one archive of many large revisions fill the memory before being refused.
    entries = await resolveForDownload(archive, identity, ignoreNotFound, { ...deps, resources }, (entry) => {
      if (entry.kind === 'file') return;
      sourceBytes += entry.state.sourceBytes;
      if (sourceBytes > bounds.maxSourceBytes) {
        throw new PlatformError(
          413,
          'ArchiveTooLarge',
          `The resources of this archive hold more than ${bounds.maxSourceBytes} bytes of payload, the most an archive may render. Split it into several archives.`,
        );
      }
    });
  } catch (error) {
    held.release();
    throw error;
  }
  let rendered = 0;
  // Revisions never change: each entry's is the one it was pinned to, whose payload resolving measured and let go.
  const revisionOf = revisionReads(entries, (entry) => resources.lookup(entry.project, entry.state.id, { rev: entry.state.rev }));
  // The download's entries take their turns on the render threads as its caller's, one entry in flight at a time (zip.ts).
  return {
    archiveId: archive.id,
    entryCount: entries.length,
    abandon: held.release,
    stream: (onError) => {
      const zip = zipStream(
        entries,
        {
          render: async (entry) => {
            const state = await revisionOf(entry);
            const { bytes, content } = await renderer.entry(entityView(state, entry.project, deps.baseUri), entry.format, caller);
            rendered += bytes;
            if (rendered > bounds.maxRenderedBytes) {
              content.destroy();
              throw new Error(`archive ${archive.id}: rendered resources exceed ${bounds.maxRenderedBytes} bytes; download cut`);
            }
            return content;
          },
          open: (entry, { checked }) => (checked ? deps.files.content(entry.state) : deps.files.uncheckedContent(entry.state)),
          compressible: async (entry) =>
            !isAlreadyCompressedType(entry.state.file.mediaType) && sampleCompresses(await deps.files.contentHead(entry.state, SAMPLE_BYTES)),
        },
        onError,
      );
      zip.once('close', held.release);
      return zip;
    },
  };
}
