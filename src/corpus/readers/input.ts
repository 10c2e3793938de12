/**
 * Raw input access shared by all readers: the bytes of a file, transparently
 * gunzipped (MEDLINE baseline files are distributed as .xml.gz), with the
 * on-disk bytes reported for progress.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
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

async function isGzipped(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** The content of `file` as byte chunks; `onBytes` gets the on-disk size of each chunk read. */
export async function* readChunks(
  file: string,
  onBytes?: (bytesRead: number) => void,
): AsyncGenerator<Buffer> {
  const gzipped = await isGzipped(file);
  const raw = createReadStream(file, { highWaterMark: READ_CHUNK_BYTES });
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
  for await (const chunk of content) yield chunk as Buffer;
}

/** The content of `file` as text (UTF-8), decoded across chunk boundaries. */
export async function* readText(
  file: string,
  onBytes?: (bytesRead: number) => void,
): AsyncGenerator<string> {
  // TextDecoder drops a leading byte-order mark, which JSON.parse would reject.
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of readChunks(file, onBytes)) {
    const text = decoder.decode(chunk, { stream: true });
    if (text.length > 0) yield text;
  }
  const rest = decoder.decode();
  if (rest.length > 0) yield rest;
}
