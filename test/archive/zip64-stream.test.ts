/**
 * An entry over 4 GiB, read front to back by Java's ZipInputStream. The content is generated
 * (zeros, with random bytes at its start, across the 4 GiB mark and at its end), not read from
 * disk: even a sparse file costs the kernel a copy of every zero, twice (a stored file is read
 * twice). It is of a compressed media type, so it is stored: its header must carry its CRC and,
 * in a ZIP64 field, its sizes. The entry after it starts past 4 GiB.
 */
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import type { ResolvedFile } from '../../src/archive/resolve.js';
import { zipStream } from '../../src/archive/zip.js';
import { HAS_JAVA, NO_JAVA, readWithZipInputStream } from './zip-stream-reader.js';

const SLICE = 1024 ** 2;
const BIG_BYTES = 2 ** 32 + 3 * SLICE + 123;
const marks = [0, 2 ** 32 - 500, BIG_BYTES - 1000].map((position) => ({ position, bytes: randomBytes(1000) }));
const notes = Buffer.from('notes after the big entry\n'.repeat(100));

/** The big content, in 1 MiB slices: one shared slice of zeros, or a copy with the parts of marks that fall in it. */
function bigContent(): Readable {
  const zeros = Buffer.alloc(SLICE);
  let position = 0;
  return new Readable({
    read() {
      if (position === BIG_BYTES) return void this.push(null);
      const end = Math.min(position + SLICE, BIG_BYTES);
      const within = marks.filter((mark) => mark.position < end && mark.position + mark.bytes.length > position);
      let slice = zeros.subarray(0, end - position);
      if (within.length > 0) {
        slice = Buffer.from(slice);
        for (const mark of within) mark.bytes.copy(slice, Math.max(mark.position - position, 0), Math.max(position - mark.position, 0));
      }
      position = end;
      this.push(slice);
    },
  });
}

function fileEntry(name: string, bytes: number, mediaType: string): ResolvedFile {
  const state = { updatedAt: Date.parse('2025-01-01T00:00:00Z'), file: { digest: name, bytes, filename: name, mediaType } } as ResolvedFile['state'];
  return { name, state, project: {} as ResolvedFile['project'], kind: 'file' };
}

describe.skipIf(!HAS_JAVA)(`a stored entry over 4 GiB read by ZipInputStream (${HAS_JAVA ? '/usr/bin/java' : NO_JAVA})`, () => {
  test('its bytes and those of the entry after it read back whole', async () => {
    let expectedCrc = 0;
    for await (const slice of bigContent()) expectedCrc = crc32(slice as Buffer, expectedCrc);
    const errors: Error[] = [];
    const zip = zipStream(
      [fileEntry('big.jpg', BIG_BYTES, 'image/jpeg'), fileEntry('notes.txt', notes.length, 'text/plain')],
      {
        render: () => Promise.reject(new Error('no resources here')),
        compressible: async (entry) => entry.name === 'notes.txt',
        open: (entry) => (entry.name === 'big.jpg' ? bigContent() : Readable.from([notes])),
      },
      (error) => errors.push(error),
    );
    const read = await readWithZipInputStream(zip);
    expect(errors).toEqual([]);
    expect(read).toEqual([
      { name: 'big.jpg', method: 0, bytes: BIG_BYTES, crc: expectedCrc },
      { name: 'notes.txt', method: 8, bytes: notes.length, crc: crc32(notes) },
    ]);
  });
});
