/**
 * SegmentBuilder.write then Segment.load: every column and table an article
 * went in with comes back from the file, and the term dictionary finds each
 * analysed term with the postings of exactly the paragraphs that hold it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SegmentBuilder, compareUtf8 } from '../../../src/search/segment/writer.js';
import { NO_VALUE, Segment, readSegmentArticleIds } from '../../../src/search/segment/reader.js';
import { SegmentFormatError } from '../../../src/search/segment/errors.js';
import { NO_MORE_DOCS, PostingsCursor } from '../../../src/search/segment/postings.js';
import { analyze } from '../../../src/search/analysis/analyzer.js';
import { random } from '../../../scripts/lib/random.js';
import type { ArticleInput } from '../../../src/corpus/model.js';
import { article, tempDir } from '../helpers.js';

const WORDS = ['protein', 'kinase', 'cell', 'tumour', 'growth', 'naïve', 'Zürich', 'receptor', 'mice', 'über', 'β-catenin', 'signal'];
const TYPES = ['research-article', 'review-article', 'case-report'];
const ISSNS = ['1234-5678', '2049-3630', '0028-0836'];

function corpus(count: number): ArticleInput[] {
  const next = random(42);
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
  const sentence = () => Array.from({ length: 1 + Math.floor(next() * 12) }, () => pick(WORDS)).join(' ');
  return Array.from({ length: count }, (_, i) =>
    article(`a${i}`, Array.from({ length: 1 + Math.floor(next() * 4) }, sentence), {
      title: sentence(),
      authors: next() < 0.3 ? [] : [pick(['Ada Lovelace', 'Emmy Noether', 'Marie Curie']), 'Alan Turing'],
      date: next() < 0.2 ? null : `20${10 + (i % 10)}-0${1 + (i % 9)}-1${i % 10}`,
      article_type: pick(TYPES),
      article_types: next() < 0.5 ? [pick(TYPES)] : undefined,
      journal_issn: next() < 0.2 ? null : pick(ISSNS),
      journal_issns: next() < 0.3 ? [pick(ISSNS)] : undefined,
      journal_name: 'Journal of Tests',
    }),
  );
}

describe('segment file round trip', () => {
  const articles = corpus(150);
  let dir: { dir: string; cleanup: () => Promise<void> };
  let file: string;
  let segment: Segment;

  beforeAll(async () => {
    dir = await tempDir();
    file = path.join(dir.dir, 'seg.bin');
    const builder = new SegmentBuilder();
    for (const each of articles) builder.addArticle(each);
    const header = await builder.write(file);
    segment = await Segment.load(file);
    expect(segment.header).toEqual(header);
  });
  afterAll(() => dir.cleanup());

  it('keeps the counts, article ids, paragraph ranges and the article of each paragraph', async () => {
    const paragraphs = articles.reduce((sum, each) => sum + each.paragraphs.length, 0);
    expect([segment.articleCount, segment.paragraphCount]).toEqual([articles.length, paragraphs]);
    articles.forEach((each, ordinal) => {
      expect(segment.articleIds.get(ordinal)).toBe(each.article_id);
      const first = segment.articleFirstParagraph[ordinal]!;
      expect(segment.articleFirstParagraph[ordinal + 1]! - first).toBe(each.paragraphs.length);
      for (let p = first; p < first + each.paragraphs.length; p++) expect(segment.paragraphArticle[p]).toBe(ordinal);
    });
    expect(await readSegmentArticleIds(file)).toEqual({
      ids: articles.map((each) => each.article_id),
      paragraphs: articles.reduce((sum, each) => sum + each.paragraphs.length, 0),
    });
  });

  it('keeps dates, types, journals (primary and all) and authors', () => {
    articles.forEach((each, ordinal) => {
      expect(segment.articleDate[ordinal]).toBe(each.date === null ? NO_VALUE | 0 : Number(each.date.replaceAll('-', '')));
      expect(segment.types.get(segment.articleType[ordinal]!)).toBe(each.article_type);
      expect(segment.articleTypes(ordinal).map((id) => segment.types.get(id))).toEqual([...new Set([each.article_type, ...(each.article_types ?? [])])]);
      const journal = segment.articleJournal[ordinal]!;
      expect(journal === NO_VALUE ? null : segment.journals.get(journal)).toBe(each.journal_issn);
      const issns = [...new Set([...(each.journal_issn === null ? [] : [each.journal_issn]), ...(each.journal_issns ?? [])])];
      expect(segment.articleIssns(ordinal).map((id) => segment.journals.get(id))).toEqual(issns);
      for (const id of segment.articleIssns(ordinal)) expect(segment.journalNames.get(id)).toBe('Journal of Tests');
      expect(segment.articleAuthors(ordinal).map((id) => segment.authors.get(id))).toEqual([...new Set(each.authors)]);
    });
  });

  it('sorts the dictionary by UTF-8 bytes and finds every term (and no other)', () => {
    const terms = Array.from({ length: segment.terms.size }, (_, i) => segment.terms.get(i));
    expect(terms).toEqual([...terms].sort(compareUtf8));
    expect(new Set(terms)).toEqual(new Set(articles.flatMap((each) => [each.title, ...each.paragraphs.map((p) => p.text)].flatMap(analyze))));
    terms.forEach((term, ordinal) => expect(segment.termOrdinal(term)).toBe(ordinal));
    expect(segment.termOrdinal('absent')).toBe(-1);
    expect(segment.termOrdinal('')).toBe(-1);
  });

  it('text postings list the paragraphs holding a term; title postings the articles', () => {
    const texts = articles.flatMap((each) => each.paragraphs.map((p) => analyze(p.text)));
    const titles = articles.map((each) => analyze(each.title));
    for (const term of new Set(WORDS.flatMap(analyze))) {
      const ordinal = segment.termOrdinal(term);
      for (const [field, documents] of [['text', texts], ['title', titles]] as const) {
        const want = documents.flatMap((tokens, doc) => (tokens.includes(term) ? [[doc, tokens.filter((t) => t === term).length]] : []));
        const got: number[][] = [];
        if (ordinal >= 0 && segment.fields[field].postingCount[ordinal]! > 0) {
          const cursor = PostingsCursor.forTerm(segment.fields[field], ordinal);
          for (let doc = cursor.next(); doc !== NO_MORE_DOCS; doc = cursor.next()) got.push([doc, cursor.freq]);
        }
        expect(got, `${field}:${term}`).toEqual(want);
      }
    }
    expect(segment.header.fields.text.sumLength).toBe(texts.reduce((sum, tokens) => sum + tokens.length, 0));
  });

  it('refuses a file that is not a segment, or is cut short', async () => {
    const bytes = await readFile(file);
    const bad = path.join(dir.dir, 'bad.bin');
    await writeFile(bad, Buffer.concat([Buffer.from('NOTASEG!'), bytes.subarray(8)]));
    await expect(Segment.load(bad)).rejects.toThrow(SegmentFormatError);
    await expect(readSegmentArticleIds(bad)).rejects.toThrow(SegmentFormatError);
    await writeFile(bad, bytes.subarray(0, 10));
    await expect(Segment.load(bad)).rejects.toThrow(SegmentFormatError);
  });
});
