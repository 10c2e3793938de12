/**
 * Bytes changed in place in an index's files, which keep every structure
 * valid (postings decoding to other documents, other norms, other text in a
 * fragment copied as it is), are found by the files' checksums: a load
 * refuses the segment, a query reading them is the damaged-file error naming
 * the file (503 code 15 once served), and a merge refuses, naming the file
 * and leaving the index as it was. Without the checksums, each of them was
 * loaded, served or merged as if nothing had changed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { Searcher } from '../../src/search/searcher.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { Library } from '../../src/corpus/library.js';
import { mergeAll } from '../../src/search/merge.js';
import { readManifest, segmentFile, storedFile } from '../../src/search/manifest.js';
import { Segment } from '../../src/search/segment/reader.js';
import { damagedFileOf } from '../../src/search/segment/errors.js';
import { ELEMENT_BYTES } from '../../src/search/segment/format.js';
import { STORED_PREAMBLE_BYTES, decodePreamble, tablesLayout, type StoredCompression } from '../../src/search/stored/format.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { tempDir, writeIndex } from './helpers.js';
import { OCTOPUS, ZEBRAFISH, rejection } from './damaged-corpus.js';

const ALL = compileFilterSpec({});

/** Flips one bit of the array `name` of a segment file, `at` bytes into it (by default its middle). */
async function flipArrayBit(file: string, name: string, at?: (segment: Segment) => number): Promise<void> {
  const segment = await Segment.load(file);
  const spec = segment.header.arrays.find((candidate) => candidate.name === name)!;
  const bytes = spec.length * ELEMENT_BYTES[spec.type];
  expect(bytes, name).toBeGreaterThan(0);
  const position = spec.byteOffset + (at ? at(segment) : Math.floor(bytes / 2));
  const content = await readFile(file);
  content[position] ^= 0x04;
  await writeFile(file, content);
}

/** The byte, inside the text postings, of the first block of the term `term`. */
const firstPostingsByteOf = (term: string) => (segment: Segment) => {
  const { blockStart, blockOffset } = segment.fields.text;
  return blockOffset[blockStart[segment.termOrdinal(term)]!]! * 4;
};

/**
 * Changes one letter of the last fragments of a stored file in place so that it still decodes, with
 * its length, to JSON of the same members: only a checksum tells it from what was written.
 */
async function changeStoredLetter(file: string, compression: StoredCompression): Promise<void> {
  const bytes = await readFile(file);
  if (compression === 'deflate') {
    const header = decodePreamble(bytes, file);
    const { f64Entries } = tablesLayout(header);
    const offsets = new Float64Array(bytes.buffer.slice(bytes.byteOffset + STORED_PREAMBLE_BYTES, bytes.byteOffset + STORED_PREAMBLE_BYTES + 8 * f64Entries));
    const [from, to] = [offsets[f64Entries - 2]!, offsets[f64Entries - 1]!];
    const chunk = inflateSync(bytes.subarray(from, to));
    // Another letter somewhere in the last chunk that deflates to as many bytes: valid deflate data, of another text.
    for (let at = chunk.length - 1; at >= 0; at--) {
      if (!isLowercaseLetter(chunk[at]!)) continue;
      for (const letter of Buffer.from('etaoinshrdlcumwfgypbvk')) {
        const changed = Buffer.from(chunk);
        changed[at] = letter;
        const deflated = deflateSync(changed);
        if (letter === chunk[at] || deflated.length !== to - from) continue;
        deflated.copy(bytes, from);
        await writeFile(file, bytes);
        return;
      }
    }
    expect.fail('no letter of the last chunk deflates to the same length once changed');
  }
  // The last letter of the data that is a literal: with a token table, one after a byte that is neither a code nor its second byte.
  for (let at = bytes.length - 1; at > 0; at--) {
    if (!isLowercaseLetter(bytes[at]!) || (compression === 'dictionary' && bytes[at - 1]! < 0x20)) continue;
    bytes[at] = otherLetter(bytes[at]!);
    await writeFile(file, bytes);
    return;
  }
}

const isLowercaseLetter = (byte: number) => byte >= 0x61 && byte <= 0x7a;
const otherLetter = (byte: number) => (byte === 0x78 ? 0x79 : 0x78);

describe('checksums of the index files', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let searcher: Searcher | null = null;
  let zebrafishSegment: string;

  /** Two generations, a zebrafish segment then an octopus one, their stored fields in `compression`. */
  async function twoSegments(compression: StoredCompression = 'dictionary'): Promise<void> {
    await writeIndex(dir, ZEBRAFISH, undefined, compression);
    await writeIndex(dir, OCTOPUS, undefined, compression);
    zebrafishSegment = (await readManifest(dir)).segments[0]!.name;
  }

  // Every query and every fragment copy on the one worker thread, as served.
  const open = async () => (searcher = await Searcher.open(dir, { threads: 1, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4, poolCopies: 1 }));

  const snapshotOf = async () => ({ files: (await readdir(dir)).sort(), manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8') });

  /** A merge of everything refuses, naming `file` and `what`, and leaves the index as it was. */
  async function mergeRefused(file: string, what: RegExp): Promise<void> {
    const before = await snapshotOf();
    const merging = mergeAll(dir);
    await expect(merging).rejects.toThrow(file);
    await expect(merging).rejects.toThrow(what);
    await expect(merging).rejects.toThrow(/is damaged: re-ingest/);
    expect(await snapshotOf()).toEqual(before);
  }

  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(async () => {
    await searcher?.close();
    searcher = null;
    await cleanup();
  });

  describe('postings changed in place', () => {
    beforeEach(async () => {
      await twoSegments();
      await flipArrayBit(segmentFile(dir, zebrafishSegment), 'text.postings', firstPostingsByteOf('zebrafish'));
    });

    it('are the damaged segment file when a query pages them in, and the other segment is still served', async () => {
      await open();
      const error = await rejection(searcher!.search('zebrafish', 10, ALL));
      expect(damagedFileOf(error)).toBe(segmentFile(dir, zebrafishSegment));
      expect(String(error)).toMatch(/postings page \d+ does not match its checksum/);
      expect((await searcher!.search('octopus', 10, ALL)).length).toBe(10);
    });

    it('are refused by a merge, which reads every posting', async () => {
      await mergeRefused(segmentFile(dir, zebrafishSegment), /array text\.postings does not match its checksum/);
    });
  });

  describe('norms changed in place', () => {
    beforeEach(async () => {
      await twoSegments();
      await flipArrayBit(segmentFile(dir, zebrafishSegment), 'text.norms');
    });

    it('refuse the segment at load, naming it', async () => {
      const file = segmentFile(dir, zebrafishSegment);
      const opening = open();
      await expect(opening).rejects.toThrow(file);
      await expect(opening).rejects.toThrow(/array text\.norms does not match its checksum/);
      await expect(Segment.load(file, { pagedPostings: true })).rejects.toThrow(/array text\.norms does not match its checksum/);
    });

    it('are refused by a merge', async () => {
      await mergeRefused(segmentFile(dir, zebrafishSegment), /array text\.norms does not match its checksum/);
    });
  });

  it('refuse ingestion over an article id changed in place (ingestion reads the ids alone)', async () => {
    await twoSegments();
    const file = segmentFile(dir, zebrafishSegment);
    await flipArrayBit(file, 'article.id.bytes');
    const before = await snapshotOf();
    const opening = IndexWriter.open(dir);
    await expect(opening).rejects.toThrow(file);
    await expect(opening).rejects.toThrow(/array article\.id\.bytes does not match its checksum.*is damaged: re-ingest/);
    expect(await snapshotOf()).toEqual(before);
  });

  it('refuse a segment whose header changed in place (a field length, which only scores would show) at load', async () => {
    await twoSegments();
    const file = segmentFile(dir, zebrafishSegment);
    const bytes = await readFile(file);
    // The text field's summed length, a msgpack uint16 after its key: its low byte changes.
    const key = bytes.indexOf('sumLength', 0, 'latin1') + 'sumLength'.length;
    expect(bytes[key]).toBe(0xcd);
    bytes[key + 2] ^= 0x01;
    await writeFile(file, bytes);
    await expect(Segment.load(file, { pagedPostings: true })).rejects.toThrow(/its header does not match its checksum/);
    await mergeRefused(file, /its header does not match its checksum/);
  });

  describe.each(['none', 'dictionary', 'deflate'] as const)('stored text changed in place (%s)', (compression) => {
    beforeEach(async () => {
      await twoSegments(compression);
      await changeStoredLetter(storedFile(dir, zebrafishSegment), compression);
    });

    it('is the damaged stored file when a response copies its fragments, and the other segment is still served', async () => {
      await open();
      const library = new Library(searcher!);
      const error = await rejection(library.contextsJson(await searcher!.search('zebrafish', 1000, ALL)));
      expect(damagedFileOf(error)).toBe(storedFile(dir, zebrafishSegment));
      expect(String(error)).toMatch(/is damaged \(the fragment of (article|paragraph) \d+ does not match its checksum\)/);
      const intact = await library.contextsJson(await searcher!.search('octopus', 1000, ALL));
      expect(JSON.parse(intact.toString()).length).toBe(150);
    });

    it('is refused by a merge', async () => {
      await mergeRefused(storedFile(dir, zebrafishSegment), /the fragment of (article|paragraph) \d+ does not match its checksum/);
    });
  });
});
