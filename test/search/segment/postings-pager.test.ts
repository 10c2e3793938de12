/**
 * Paged postings: a segment opened with `pagedPostings` holds everything but
 * the postings at once, reads each term's postings on first use, and then
 * decodes exactly what a segment read whole decodes. Its file stays open
 * until the last holder closes it, and keeps serving once unlinked (a merge
 * removes the files of segments an older generation still reads).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { truncate, unlink } from 'node:fs/promises';
import path from 'node:path';
import { SegmentBuilder } from '../../../src/search/segment/writer.js';
import { Segment } from '../../../src/search/segment/reader.js';
import { SegmentFormatError } from '../../../src/search/segment/errors.js';
import { FIELDS, ELEMENT_BYTES, POSTINGS_PAGE_BYTES, type FieldName } from '../../../src/search/segment/format.js';
import { NO_MORE_DOCS, PostingsCursor } from '../../../src/search/segment/postings.js';
import { random } from '../../../scripts/lib/random.js';
import { article, isOpen, tempDir } from '../helpers.js';

const VOCABULARY = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}x`);

async function writeSegment(file: string): Promise<void> {
  const next = random(7);
  // Skewed word choice: a few terms span many blocks, most span one.
  const word = () => VOCABULARY[Math.floor(VOCABULARY.length * next() ** 3)]!;
  const text = (words: number) => Array.from({ length: words }, word).join(' ');
  const builder = new SegmentBuilder();
  for (let i = 0; i < 400; i++) builder.addArticle(article(`a${i}`, Array.from({ length: 3 }, () => text(20)), { title: text(5) }));
  await builder.write(file);
}

function postingsBytes(segment: Segment, field: FieldName): Uint8Array {
  const { postings } = segment.fields[field];
  return new Uint8Array(postings.buffer, postings.byteOffset, postings.byteLength);
}

/** The byte range of a term's postings inside its field's postings array. */
function termRange(segment: Segment, field: FieldName, ordinal: number): [number, number] {
  const { blockStart, blockOffset, postings } = segment.fields[field];
  const at = (block: number) => (block < blockOffset.length ? blockOffset[block]! * 4 : postings.byteLength);
  return [at(blockStart[ordinal]!), at(blockStart[ordinal + 1]!)];
}

function decodeAll(segment: Segment, field: FieldName, ordinal: number): number[][] {
  const got: number[][] = [];
  const cursor = PostingsCursor.forTerm(segment.fields[field], ordinal);
  for (let doc = cursor.next(); doc !== NO_MORE_DOCS; doc = cursor.next()) got.push([doc, cursor.freq]);
  return got;
}

describe('paged postings', () => {
  let dir: { dir: string; cleanup: () => Promise<void> };
  let file: string;
  let whole: Segment;

  beforeAll(async () => {
    dir = await tempDir();
    file = path.join(dir.dir, 'seg.bin');
    await writeSegment(file);
    whole = await Segment.load(file);
  });
  afterAll(() => dir.cleanup());

  it('reads every array but the postings at open, and a term’s postings (only) when a cursor first reads it', async () => {
    const paged = await Segment.load(file, { pagedPostings: true });
    try {
      for (const spec of paged.header.arrays) {
        const bytes = (segment: Segment) => new Uint8Array(segment.buffer, spec.byteOffset, spec.length * ELEMENT_BYTES[spec.type]);
        if (spec.name.endsWith('.postings')) expect(bytes(paged).some((byte) => byte !== 0), spec.name).toBe(false);
        else expect(bytes(paged), spec.name).toEqual(bytes(whole));
      }
      const ordinals = Array.from({ length: paged.terms.size }, (_, ordinal) => ordinal).filter((ordinal) => paged.fields.text.postingCount[ordinal]! > 0);
      const [first, second] = [ordinals[0]!, ordinals[ordinals.length - 1]!];
      PostingsCursor.forTerm(paged.fields.text, first);
      const [from, to] = termRange(paged, 'text', first);
      expect(postingsBytes(paged, 'text').subarray(from, to)).toEqual(postingsBytes(whole, 'text').subarray(from, to));
      const [secondFrom, secondTo] = termRange(paged, 'text', second);
      expect(secondTo).toBeGreaterThan(secondFrom);
      expect(postingsBytes(paged, 'text').subarray(secondFrom, secondTo).some((byte) => byte !== 0)).toBe(false);
    } finally {
      paged.close();
    }
  });

  it('decodes every term of both fields exactly as the segment read whole', async () => {
    const paged = await Segment.load(file, { pagedPostings: true });
    try {
      for (const field of FIELDS) {
        let lists = 0;
        for (let ordinal = 0; ordinal < paged.terms.size; ordinal++) {
          if (paged.fields[field].postingCount[ordinal] === 0) continue;
          expect(decodeAll(paged, field, ordinal), `${field}:${paged.terms.get(ordinal)}`).toEqual(decodeAll(whole, field, ordinal));
          lists++;
        }
        expect(lists).toBeGreaterThan(100);
      }
      expect(postingsBytes(paged, 'text')).toEqual(postingsBytes(whole, 'text'));
    } finally {
      paged.close();
    }
  });

  it('shares what one thread paged in with every segment over the same buffer (a worker’s)', async () => {
    const paged = await Segment.load(file, { pagedPostings: true });
    try {
      const mapped = Segment.fromShare(paged.share);
      const ordinal = paged.termOrdinal(VOCABULARY[0]!);
      PostingsCursor.forTerm(mapped.fields.text, ordinal);
      expect(new Uint8Array(paged.share.paging!.flags.text)[ordinal]).toBe(1);
      expect(decodeAll(paged, 'text', ordinal)).toEqual(decodeAll(whole, 'text', ordinal));
    } finally {
      paged.close();
    }
  });

  it('keeps its file open until the last holder closes it, and reads on once the file is unlinked', async () => {
    const copy = path.join(dir.dir, 'unlinked.bin');
    await writeSegment(copy);
    const paged = await Segment.load(copy, { pagedPostings: true });
    const fd = paged.share.paging!.fd;
    paged.retain();
    paged.close();
    expect(isOpen(fd)).toBe(true);
    await unlink(copy);
    const ordinal = paged.termOrdinal(VOCABULARY[1]!);
    expect(decodeAll(paged, 'title', ordinal)).toEqual(decodeAll(whole, 'title', ordinal));
    paged.close();
    expect(isOpen(fd)).toBe(false);
    expect(() => paged.retain()).toThrow(/closed/);
  });

  it('reads a term of many checksummed pages (into memory of its own) as the segment read whole', async () => {
    const copy = path.join(dir.dir, 'long-term.bin');
    const next = random(11);
    const builder = new SegmentBuilder();
    // Half the paragraphs hold "common", up to 30 times: gaps and frequencies of several bits each.
    for (let i = 0; i < 2500; i++) {
      const paragraphs = Array.from({ length: 8 }, () => (next() < 0.5 ? 'common '.repeat(1 + Math.floor(30 * next())) : '') + `w${Math.floor(1000 * next())}x`);
      builder.addArticle(article(`a${i}`, paragraphs, { title: 'title' }));
    }
    await builder.write(copy);
    const [wholeCopy, paged] = [await Segment.load(copy), await Segment.load(copy, { pagedPostings: true })];
    try {
      const ordinal = paged.termOrdinal('common');
      const [from, to] = termRange(paged, 'text', ordinal);
      expect(to - from).toBeGreaterThan(2 * POSTINGS_PAGE_BYTES);
      expect(decodeAll(paged, 'text', ordinal)).toEqual(decodeAll(wholeCopy, 'text', ordinal));
      expect(postingsBytes(paged, 'text').subarray(from, to)).toEqual(postingsBytes(wholeCopy, 'text').subarray(from, to));
    } finally {
      paged.close();
    }
  });

  it('says so when the file was cut short after it was opened', async () => {
    const copy = path.join(dir.dir, 'cut.bin');
    await writeSegment(copy);
    const paged = await Segment.load(copy, { pagedPostings: true });
    try {
      const ordinal = paged.termOrdinal(VOCABULARY[0]!);
      const [from] = termRange(paged, 'text', ordinal);
      await truncate(copy, paged.fields.text.postings.byteOffset + from);
      expect(() => PostingsCursor.forTerm(paged.fields.text, ordinal)).toThrow(SegmentFormatError);
      expect(() => PostingsCursor.forTerm(paged.fields.text, ordinal)).toThrow(/truncated after it was opened/);
    } finally {
      paged.close();
    }
  });
});
