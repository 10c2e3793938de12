/**
 * The stored-fields file: fragments round-trip in every layout (plain, coded
 * with a token table, deflated chunks, including fragments that straddle chunk boundaries and a
 * chunk cache smaller than the reads), and a truncated, damaged or foreign
 * file is refused when it is opened, with its name in the message.
 */
import { readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredFieldsBuilder } from '../../../src/search/stored/writer.js';
import { StoredFields } from '../../../src/search/stored/reader.js';
import { STORED_FORMAT_VERSION, StoredFormatError, type StoredCompression } from '../../../src/search/stored/format.js';
import { renderArticle, renderParagraph } from '../../../src/search/stored/render.js';
import { Searcher } from '../../../src/search/searcher.js';
import type { ArticleInput } from '../../../src/corpus/model.js';
import { edgeCaseCorpus } from '../stored-corpus.js';
import { tempDir, writeIndex } from '../helpers.js';

const corpus: ArticleInput[] = edgeCaseCorpus(120, 21);

async function writeStored(file: string, compression: StoredCompression, chunkSize?: number): Promise<void> {
  const builder = new StoredFieldsBuilder();
  for (const article of corpus) builder.addArticle(article);
  await builder.write(file, compression, chunkSize);
}

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(async () => cleanup());

describe.each([
  ['plain', 'none', undefined],
  ['coded with a token table', 'dictionary', undefined],
  ['deflated in 16 KiB chunks', 'deflate', undefined],
  // Chunks smaller than most fragments: nearly every fragment straddles a boundary.
  ['deflated in 509-byte chunks', 'deflate', 509],
] as const)('stored fields, %s', (name, compression, chunkSize) => {
  it('returns every fragment exactly as rendered, copied at any position', async () => {
    const file = path.join(dir, `${name}.stored`);
    await writeStored(file, compression, chunkSize);
    // A cache of one chunk: every straddling read evicts what it just used.
    const stored = StoredFields.open(file, { chunkCacheBytes: 1 });
    try {
      expect(stored.articleCount).toBe(corpus.length);
      let paragraph = 0;
      const target = Buffer.alloc(64 * 1024);
      for (const [a, article] of corpus.entries()) {
        expect(stored.articleJson(a)).toBe(renderArticle(article));
        const end = stored.copyArticle(a, target, 3);
        expect(target.toString('utf8', 3, end)).toBe(renderArticle(article));
        for (let position = 0; position < article.paragraphs.length; position++, paragraph++) {
          expect(stored.paragraphJson(paragraph)).toBe(renderParagraph(article, position));
          expect(stored.paragraphLength(paragraph)).toBe(Buffer.byteLength(renderParagraph(article, position)));
        }
      }
      expect(stored.paragraphCount).toBe(paragraph);
      // Backwards too, so the cache serves reads in another order.
      for (let p = paragraph - 1; p >= 0; p -= 7) expect(JSON.parse(`{${stored.paragraphJson(p)}}`)).toHaveProperty('paragraph');
    } finally {
      stored.close();
    }
  });

  it('reads in file order from reads ahead: the same fragments in any order, whatever their size against the read-ahead', async () => {
    const file = path.join(dir, `${name}-ahead.stored`);
    await writeStored(file, compression, chunkSize);
    const plain = StoredFields.open(file);
    // 64 bytes: most fragments are longer (read on their own); 700: they straddle its end; 1 MiB: the whole file at once.
    for (const aheadBytes of [64, 700, 1024 * 1024]) {
      const ahead = StoredFields.open(file);
      ahead.readInFileOrder(aheadBytes);
      try {
        // File order, as a merge reads: an article, then its paragraphs.
        let paragraph = 0;
        for (const [a, article] of corpus.entries()) {
          expect(ahead.articleJson(a)).toBe(renderArticle(article));
          for (let position = 0; position < article.paragraphs.length; position++, paragraph++) {
            expect(ahead.paragraphJson(paragraph)).toBe(renderParagraph(article, position));
          }
        }
        for (let p = paragraph - 1; p >= 0; p -= 5) expect(ahead.paragraphJson(p)).toBe(plain.paragraphJson(p));
      } finally {
        ahead.close();
      }
    }
    plain.close();
  });

  it("gives a worker thread's view the same fragments, through shared tables and the owner's descriptor", async () => {
    const file = path.join(dir, `${name}-shared.stored`);
    await writeStored(file, compression, chunkSize);
    const owner = StoredFields.open(file);
    try {
      const { tables, tokenTable } = owner.share;
      expect(tables.buffer).toBeInstanceOf(SharedArrayBuffer);
      if (compression === 'dictionary') expect(tokenTable.buffer).toBeInstanceOf(SharedArrayBuffer);
      const view = StoredFields.fromShare(owner.share);
      for (let a = 0; a < corpus.length; a++) expect(view.articleJson(a)).toBe(owner.articleJson(a));
      for (let p = 0; p < owner.paragraphCount; p++) expect(view.paragraphJson(p)).toBe(owner.paragraphJson(p));
      // The view never closes the descriptor and cannot hand out holders of it: the owner's snapshots decide.
      view.close();
      expect(() => view.retain()).toThrow(/worker's view/);
      expect(owner.articleJson(0)).toBe(renderArticle(corpus[0]!));
    } finally {
      owner.close();
    }
  });

  it('refuses a truncated file at open', async () => {
    const file = path.join(dir, `${name}-truncated.stored`);
    await writeStored(file, compression, chunkSize);
    const { size } = await stat(file);
    for (const length of [size - 1, Math.floor(size / 2), 100, 20, 0]) {
      await truncate(file, length);
      expect(() => StoredFields.open(file)).toThrow(StoredFormatError);
      expect(() => StoredFields.open(file)).toThrow(file);
    }
  });

  it('refuses damaged offset tables, a foreign file and a newer version at open', async () => {
    const file = path.join(dir, `${name}-damaged.stored`);
    await writeStored(file, compression, chunkSize);
    const original = await readFile(file);
    const cases: [string, (bytes: Buffer) => void, RegExp][] = [
      ['a flipped table byte', (b) => (b[48 + 8 * 5 + 3]! ^= 0x10), /checksum/],
      ['bad magic', (b) => b.write('NOTSTORE', 0, 'latin1'), /not a stored-fields file/],
      ['a newer version', (b) => b.writeUInt32LE(STORED_FORMAT_VERSION + 1, 8), new RegExp(`format ${STORED_FORMAT_VERSION + 1} is not supported.*re-ingest`)],
      ['the previous version', (b) => b.writeUInt32LE(1, 8), /format 1 is not supported.*re-ingest/],
      ['an unknown compression', (b) => b.writeUInt32LE(9, 12), /unknown compression/],
      ['a wrong paragraph count', (b) => b.writeUInt32LE(b.readUInt32LE(20) + 1, 20), /truncated|damaged|checksum/],
    ];
    for (const [label, damage, message] of cases) {
      const bytes = Buffer.from(original);
      damage(bytes);
      await writeFile(file, bytes);
      expect(() => StoredFields.open(file), label).toThrow(message);
    }
    await rm(file);
  });
});

it.each(['none', 'dictionary'] as const)('serves fragments read in file order from its read ahead, not one read each (%s)', async (compression) => {
  const file = path.join(dir, `ahead-evidence-${compression}.stored`);
  await writeStored(file, compression);
  const { size } = await stat(file);
  expect(size).toBeLessThan(1024 * 1024);
  const stored = StoredFields.open(file);
  try {
    stored.readInFileOrder(1024 * 1024);
    expect(stored.articleJson(0)).toBe(renderArticle(corpus[0]!));
    // The first read took the whole file: zeroing its second half on disk changes nothing read after it.
    const bytes = await readFile(file);
    bytes.fill(0, size >> 1);
    await writeFile(file, bytes);
    const last = corpus.length - 1;
    expect(stored.articleJson(last)).toBe(renderArticle(corpus[last]!));
    expect(stored.paragraphJson(stored.paragraphCount - 1)).toBe(renderParagraph(corpus[last]!, corpus[last]!.paragraphs.length - 1));
    // Without reads ahead, the same fragment comes from the zeroed bytes.
    const fresh = StoredFields.open(file);
    try {
      let read: string | Error;
      try {
        read = fresh.articleJson(last);
      } catch (error) {
        read = error as Error;
      }
      expect(read).not.toBe(renderArticle(corpus[last]!));
    } finally {
      fresh.close();
    }
  } finally {
    stored.close();
  }
});

it('a damaged deflated chunk is a clear error when read, not a crash or wrong bytes', async () => {
  const file = path.join(dir, 'chunk-damaged.stored');
  await writeStored(file, 'deflate', 4096);
  const bytes = await readFile(file);
  // Flip a byte inside the compressed data (past the preamble and tables).
  bytes[bytes.length - 100]! ^= 0xff;
  await writeFile(file, bytes);
  const stored = StoredFields.open(file, { chunkCacheBytes: 1 });
  try {
    expect(() => {
      for (let p = 0; p < stored.paragraphCount; p++) stored.paragraphJson(p);
    }).toThrow(/chunk \d+ (is damaged|inflates)/);
  } finally {
    stored.close();
  }
});

it('a damaged coded fragment is a clear error when read, not a crash', async () => {
  const file = path.join(dir, 'coded-damaged.stored');
  await writeStored(file, 'dictionary');
  const bytes = await readFile(file);
  // The file's last bytes (the last paragraph's code) become unknown token codes: the table has fewer than 31 × 256 entries.
  for (let at = bytes.length - 64; at < bytes.length; at += 2) bytes.set([0x1f, 0xff], at);
  await writeFile(file, bytes);
  const stored = StoredFields.open(file);
  try {
    const last = () => stored.paragraphJson(stored.paragraphCount - 1);
    expect(last).toThrow(StoredFormatError);
    expect(last).toThrow(file);
    expect(last).toThrow(/is damaged \(unknown token code/);
    expect(stored.paragraphJson(0)).toBe(renderParagraph(corpus[0]!, 0));
  } finally {
    stored.close();
  }
});

describe('an index whose stored fields are missing or do not match', () => {
  it('is refused at load with a message saying what to do', async () => {
    const { dir: indexDir, cleanup: remove } = await tempDir();
    try {
      await writeIndex(indexDir, corpus.slice(0, 10));
      const options = { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.25, filterCacheSize: 0 };
      const storedName = (await readdir(indexDir)).find((f) => f.endsWith('.stored'))!;
      const storedPath = path.join(indexDir, storedName);
      const builder = new StoredFieldsBuilder();
      for (const article of corpus.slice(0, 9)) builder.addArticle(article);
      await rm(storedPath);
      await builder.write(storedPath);
      await expect(Searcher.open(indexDir, options)).rejects.toThrow(/holds 9 articles .* its segment has 10/);
      await rm(storedPath);
      await expect(Searcher.open(indexDir, options)).rejects.toThrow(/is missing, though the manifest names it; .*re-ingest/);
    } finally {
      await remove();
    }
  });
});
