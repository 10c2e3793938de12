/**
 * The streaming stored-fields writer and the merge's copy through it: a copy
 * of some articles of several files is byte for byte the file a builder fed
 * the same articles writes, in every layout; fragments longer than the write
 * buffer go through; handing over more or fewer fragments than announced is an
 * error that leaves no descriptor open; an unknown compression or chunk size is
 * refused before the file is made.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredFieldsBuilder } from '../../../src/search/stored/writer.js';
import { StoredFields } from '../../../src/search/stored/reader.js';
import { StoredFileWriter } from '../../../src/search/stored/file-writer.js';
import { writeCopiedStoredFields, type CopiedArticle } from '../../../src/search/stored/copy.js';
import { renderArticle, renderParagraph } from '../../../src/search/stored/render.js';
import type { StoredCompression } from '../../../src/search/stored/format.js';
import type { ArticleInput } from '../../../src/corpus/model.js';
import { edgeCaseCorpus } from '../stored-corpus.js';
import { article, isOpen, tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(async () => cleanup());

async function built(file: string, articles: readonly ArticleInput[], compression: StoredCompression): Promise<void> {
  const builder = new StoredFieldsBuilder();
  for (const input of articles) builder.addArticle(input);
  await builder.write(file, compression);
}

describe.each(['none', 'dictionary', 'deflate'] as const)('stored fields copied from other files, %s', (compression) => {
  it('are byte for byte the file a builder fed the same articles writes, and each article is visited on its way', async () => {
    // Three sources in different layouts; every third article is left out, as a merge leaves out deleted ones.
    const parts = [edgeCaseCorpus(70, 31), edgeCaseCorpus(5, 32), edgeCaseCorpus(90, 33)];
    const layouts: StoredCompression[] = ['dictionary', 'none', 'deflate'];
    const sources: StoredFields[] = [];
    for (const [i, part] of parts.entries()) {
      const file = path.join(dir, `${compression}-source-${i}.stored`);
      await built(file, part, layouts[i]!);
      sources.push(StoredFields.open(file));
    }
    try {
      const copied: CopiedArticle[] = [];
      const kept: ArticleInput[] = [];
      let paragraphOffset = 0;
      parts.forEach((part, s) => {
        paragraphOffset = 0;
        part.forEach((input, a) => {
          const [from, to] = [paragraphOffset, paragraphOffset + input.paragraphs.length];
          paragraphOffset = to;
          if (a % 3 === 1) return;
          copied.push({ source: sources[s]!, article: a, from, to });
          kept.push(input);
        });
      });
      const visited: string[] = [];
      const copyFile = path.join(dir, `${compression}-copy.stored`);
      await writeCopiedStoredFields(copyFile, copied, compression, (index, articleJson) => visited.push(`${index}:${articleJson}`));
      const builtFile = path.join(dir, `${compression}-built.stored`);
      await built(builtFile, kept, compression);

      expect((await readFile(copyFile)).equals(await readFile(builtFile))).toBe(true);
      expect(visited).toEqual(kept.map((input, i) => `${i}:${renderArticle(input)}`));
    } finally {
      for (const source of sources) source.close();
    }
  });
});

it('writes fragments longer than its write buffer, in every layout', async () => {
  const long = 'neuron '.repeat(300_000); // 2.1 MB, twice the write buffer
  const articles = [article('short', ['a first paragraph']), article('long', [long, 'after the long one'])];
  for (const compression of ['none', 'dictionary', 'deflate'] as const) {
    const file = path.join(dir, `long-${compression}.stored`);
    await built(file, articles, compression);
    const stored = StoredFields.open(file);
    try {
      expect(stored.articleJson(1)).toBe(renderArticle(articles[1]!));
      expect(stored.paragraphJson(1)).toBe(renderParagraph(articles[1]!, 0));
      expect(stored.paragraphJson(2)).toBe(renderParagraph(articles[1]!, 1));
    } finally {
      stored.close();
    }
  }
});

describe('handing over other fragments than announced', () => {
  const fragment = Buffer.from('"article_id":"x"');

  it('refuses one fragment too many at once, and too few at finish; the file is closed either way', () => {
    const tooMany = StoredFileWriter.create(path.join(dir, 'too-many.stored'), { articles: 1, paragraphs: 0, dataLength: fragment.length }, 'none', null);
    tooMany.addArticle(fragment, 0, fragment.length);
    expect(() => tooMany.addArticle(fragment, 0, fragment.length)).toThrow(/more than the 1 articles announced/);
    expect(() => tooMany.addParagraph(fragment, 0, fragment.length)).toThrow(/more than the 0 paragraphs announced/);
    tooMany.abandon();

    const tooFew = StoredFileWriter.create(path.join(dir, 'too-few.stored'), { articles: 2, paragraphs: 0, dataLength: 2 * fragment.length }, 'none', null);
    tooFew.addArticle(fragment, 0, fragment.length);
    const fd = (tooFew as unknown as { fd: number }).fd;
    expect(isOpen(fd)).toBe(true);
    expect(() => tooFew.finish()).toThrow(/1 articles, 0 paragraphs, 16 bytes handed over; 2, 0, 32 announced/);
    expect(isOpen(fd)).toBe(false);
  });

  it('refuses a token table without the dictionary compression, and an existing file', async () => {
    expect(() => StoredFileWriter.create(path.join(dir, 'no-table.stored'), { articles: 0, paragraphs: 0, dataLength: 0 }, 'dictionary', null)).toThrow(
      /token table goes with the dictionary compression only/,
    );
    const file = path.join(dir, 'exists.stored');
    await built(file, [article('one', ['text'])], 'none');
    expect(() => StoredFileWriter.create(file, { articles: 0, paragraphs: 0, dataLength: 0 }, 'none', null)).toThrow(/EEXIST/);
  });

  it('refuses an unknown compression and an empty or broken chunk size before creating the file', async () => {
    const shape = { articles: 1, paragraphs: 0, dataLength: fragment.length };
    const file = path.join(dir, 'refused.stored');
    expect(() => StoredFileWriter.create(file, shape, 'gzip' as StoredCompression, null)).toThrow(/unknown stored compression "gzip" \(one of none, deflate, dictionary\)/);
    for (const chunkSize of [0, -1, 0.5, Number.NaN]) {
      expect(() => StoredFileWriter.create(file, shape, 'deflate', null, chunkSize)).toThrow(/a chunk holds a positive whole number of bytes/);
    }
    await expect(readFile(file)).rejects.toThrow(/ENOENT/);
  });
});
