/**
 * A segment whose postings block metadata were damaged (bytes overwritten in
 * place: the file keeps its size, so no truncation check sees it) is refused
 * at load, naming the file. Loaded, it had answered queries with 500s: a
 * term's block offsets pointing past the postings made the paging read throw
 * a RangeError naming nothing, and a block's bit width or last document past
 * the segment would decode garbage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFile, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { unpack } from 'msgpackr';
import { IndexSnapshot } from '../../../src/search/snapshot.js';
import { readManifest } from '../../../src/search/manifest.js';
import { PREAMBLE_BYTES, ELEMENT_BYTES, type SegmentHeader } from '../../../src/search/segment/format.js';
import { article, tempDir, writeIndex } from '../helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let file: string;
let header: SegmentHeader;
let pristine: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  // A word on every paragraph: its postings span several blocks.
  await writeIndex(dir, Array.from({ length: 400 }, (_, i) => article(`a${i}`, [`common word${i}`, `common other${i}`])));
  const { segments } = await readManifest(dir);
  file = path.join(dir, `${segments[0]!.name}.seg`);
  pristine = `${file}.pristine`;
  await copyFile(file, pristine);
  const bytes = await readFile(file);
  header = unpack(bytes.subarray(PREAMBLE_BYTES, PREAMBLE_BYTES + bytes.readUInt32LE(8))) as SegmentHeader;
});
afterAll(() => cleanup());

/** Overwrites element `index` of the named array (from the end when negative) with `value`, in place. */
async function overwrite(name: string, index: number, value: number): Promise<void> {
  await copyFile(pristine, file);
  const spec = header.arrays.find((a) => a.name === name)!;
  const size = ELEMENT_BYTES[spec.type];
  const at = spec.byteOffset + (index < 0 ? spec.length + index : index) * size;
  const bytes = Buffer.alloc(size);
  if (size === 1) bytes.writeUInt8(value);
  else bytes.writeUInt32LE(value);
  const handle = await open(file, 'r+');
  try {
    await handle.write(bytes, 0, size, at);
  } finally {
    await handle.close();
  }
}

describe('a segment with damaged postings block metadata', () => {
  it('loads when undamaged', async () => {
    await copyFile(pristine, file);
    const snapshot = await IndexSnapshot.open(dir);
    snapshot.close();
  });

  it.each([
    ['a block offset past the postings', 'text.blockOffset', -1, 0x7fffffff],
    ['block offsets going back', 'text.blockOffset', 1, 0xfffffff],
    ['a term whose blocks start before the previous term\'s', 'text.blockStart', 2, 0xffffff],
    ['the last term\'s blocks ending past the blocks', 'title.blockStart', -1, 0xffffff],
    ['a block bit width over 32', 'text.blockDocBits', 0, 200],
    ['a block frequency width over 32', 'title.blockFreqBits', 0, 77],
    ['a block ending past the last paragraph', 'text.blockLastDoc', -1, 0x7ffffff],
  ])('is refused, naming the file: %s', async (_what, name, index, value) => {
    await overwrite(name, index, value);
    const opening = IndexSnapshot.open(dir);
    await expect(opening).rejects.toThrow(file);
    await expect(opening).rejects.toThrow(/damaged/);
  });
});
