import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate } from '../../src/text/unicode.js';
import { abstractOf } from '../../src/corpus/model.js';
import { parseArticleLine } from '../../src/corpus/readers/articles-jsonl.js';
import { articlesOf, errorsOf, fixtureDir, readAll, writeFixture } from './fixtures.js';

const complete = {
  article_id: 'a-1',
  title: 'Sleep and memory',
  authors: ['Ada Lovelace', 'Alan Turing'],
  article_doi: '10.1000/xyz',
  pubmed_id: '123',
  date: '2024-02-29',
  article_type: 'review',
  journal_issn: '1234-567X',
  journal_name: 'Journal of Sleep',
  cited_by: 7,
  impact_factor: 3.5,
  abstract: 'First abstract paragraph.\n\nSecond abstract paragraph.',
  paragraphs: [
    { section: 'Introduction', text: 'Intro text.' },
    { section: 'Methods', text: 'Methods text.' },
  ],
};

function line(value: unknown): string {
  return JSON.stringify(value);
}

function errorOf(value: unknown): string {
  const result = parseArticleLine(typeof value === 'string' ? value : line(value));
  if (!('error' in result)) throw new Error(`expected an error for ${JSON.stringify(value)}`);
  return result.error;
}

describe('articles-jsonl reader', () => {
  it('reads every field and puts the abstract first, split on blank lines', async () => {
    const dir = await fixtureDir();
    const file = await writeFixture(dir, 'one.jsonl', line(complete) + '\n');
    const events = await readAll(file, 'articles-jsonl');
    expect(events).toHaveLength(1);
    expect(events[0].source).toEqual({ file, line: 1 });
    const [article] = articlesOf(events);
    expect(article).toEqual({
      article_id: 'a-1',
      title: 'Sleep and memory',
      authors: ['Ada Lovelace', 'Alan Turing'],
      article_doi: '10.1000/xyz',
      pubmed_id: '123',
      date: '2024-02-29',
      article_type: 'review',
      journal_issn: '1234-567X',
      journal_name: 'Journal of Sleep',
      cited_by: 7,
      impact_factor: 3.5,
      paragraphs: [
        { section: 'Abstract', text: 'First abstract paragraph.' },
        { section: 'Abstract', text: 'Second abstract paragraph.' },
        { section: 'Introduction', text: 'Intro text.' },
        { section: 'Methods', text: 'Methods text.' },
      ],
    });
    expect(abstractOf(article.paragraphs)).toBe('First abstract paragraph.\nSecond abstract paragraph.');
  });

  it('stores a lower-case ISSN check character as the X the journals filter reads it as', () => {
    const result = parseArticleLine(line({ article_id: 'b', title: 'T', journal_issn: '0028-081x', paragraphs: [{ section: 'S', text: 'x' }] }));
    expect(result).toMatchObject({ article: { journal_issn: '0028-081X' } });
  });

  it('fills defaults for optional fields', () => {
    const result = parseArticleLine(line({ article_id: 'b', title: 'T', paragraphs: [{ section: 'S', text: 'x' }] }));
    expect(result).toEqual({
      article: {
        article_id: 'b',
        title: 'T',
        authors: [],
        article_doi: null,
        pubmed_id: null,
        date: null,
        article_type: 'research-article',
        journal_issn: null,
        journal_name: null,
        cited_by: null,
        impact_factor: null,
        paragraphs: [{ section: 'S', text: 'x' }],
      },
    });
  });

  it('accepts an article with only an abstract', () => {
    const result = parseArticleLine(line({ article_id: 'c', title: 'T', abstract: 'Only this.' }));
    expect('article' in result && result.article.paragraphs).toEqual([{ section: 'Abstract', text: 'Only this.' }]);
  });

  it('reports bad lines with their 1-based line number and keeps reading', async () => {
    const dir = await fixtureDir();
    const lines = [
      line({ ...complete, article_id: 'good-1' }),
      '',
      '{"article_id": "broken", ',
      line({ ...complete, journal_issn: '1234-567' }),
      '   ',
      line({ ...complete, article_id: 'good-2' }),
      line({ ...complete, date: '2023-02-30' }),
    ];
    const file = await writeFixture(dir, 'mixed.jsonl', lines.join('\r\n'));
    const events = await readAll(file, 'articles-jsonl');
    expect(articlesOf(events).map((a) => a.article_id)).toEqual(['good-1', 'good-2']);
    expect(events.filter((e) => e.kind === 'article').map((e) => e.source.line)).toEqual([1, 6]);
    const errors = errorsOf(events);
    expect(errors.map((e) => e.source)).toEqual([
      { file, line: 3 },
      { file, line: 4 },
      { file, line: 7 },
    ]);
    expect(errors[0].message).toMatch(/^invalid JSON: /);
    expect(errors[1].message).toBe('journal_issn "1234-567" is not an ISSN (XXXX-XXXX)');
    expect(errors[2].message).toBe('date "2023-02-30" is not a real date written YYYY-MM-DD');
  });

  it('rejects unknown fields, naming them', () => {
    expect(errorOf({ ...complete, titel: 'typo' })).toBe('unknown field "titel"');
    expect(errorOf({ ...complete, paragraphs: [{ section: 'S', txt: 'x', text: 'y' }] })).toBe(
      'paragraphs[0] has unknown field "txt"',
    );
  });

  it('rejects fields given twice, which JSON.parse would keep the last of silently', () => {
    expect(errorOf(line(complete).replace('"title":', '"title":"First","title":'))).toBe('field "title" is given twice');
    const twiceInParagraph = line(complete).replace('"text":"Methods text."', '"text":"a","text":"b"');
    expect(errorOf(twiceInParagraph)).toBe('paragraphs[1] has field "text" twice');
  });

  it('requires a non-empty article_id and title', () => {
    const { title: _title, ...withoutTitle } = complete;
    expect(errorOf(withoutTitle)).toBe('title is required');
    expect(errorOf({ ...complete, article_id: '  ' })).toBe('article_id must not be empty');
    expect(errorOf({ ...complete, article_id: 42 })).toBe('article_id must be a string, got number 42');
  });

  it('requires at least one paragraph with text', () => {
    expect(errorOf({ article_id: 'x', title: 'T', paragraphs: [] })).toMatch(/no paragraph with text/);
    expect(errorOf({ article_id: 'x', title: 'T', abstract: '\n\n  ', paragraphs: [{ section: 'S', text: ' ' }] })).toMatch(
      /no paragraph with text/,
    );
  });

  it('checks the type of every field', () => {
    expect(errorOf({ ...complete, authors: 'Ada' })).toBe('authors must be an array of strings, got string "Ada"');
    expect(errorOf({ ...complete, authors: ['Ada', 3] })).toBe('authors[1] must be a string, got number 3');
    expect(errorOf({ ...complete, cited_by: -1 })).toBe('cited_by must be a non-negative integer or null, got number -1');
    expect(errorOf({ ...complete, cited_by: 1.5 })).toBe('cited_by must be a non-negative integer or null, got number 1.5');
    // 1e400 parses to Infinity, which JSON.stringify would have written as null.
    expect(errorOf(line(complete).replace('"cited_by":7', '"cited_by":1e400'))).toBe('cited_by must be a non-negative integer or null, got number Infinity');
    expect(errorOf({ ...complete, impact_factor: 'high' })).toBe(
      'impact_factor must be a non-negative number or null, got string "high"',
    );
    expect(errorOf({ ...complete, pubmed_id: 123 })).toBe('pubmed_id must be a string or null, got number 123');
    expect(errorOf({ ...complete, date: '2023/01/01' })).toBe('date "2023/01/01" is not a real date written YYYY-MM-DD');
    expect(errorOf({ ...complete, paragraphs: [{ section: '', text: 'x' }] })).toBe(
      'paragraphs[0].section must be a non-empty string, got string ""',
    );
    expect(errorOf({ ...complete, paragraphs: 'text' })).toMatch(/^paragraphs must be an array/);
    expect(errorOf('[1, 2]')).toBe('line is not a JSON object');
  });

  it('shortens a long value in a message by whole characters, never half of an emoji', () => {
    const value = `${'a'.repeat(35)}\u{1F600}${'b'.repeat(10)}`;
    const error = errorOf({ ...complete, impact_factor: value });
    expect(error).toBe(`impact_factor must be a non-negative number or null, got string "${'a'.repeat(35)}\u{1F600}...`);
    expect(hasLoneSurrogate(error)).toBe(false);
  });

  it('lists every problem of a line, not just the first', () => {
    const message = errorOf({ ...complete, journal_issn: 'nope', date: '2021-13-01', extra: 1 });
    expect(message.split('; ')).toEqual([
      'date "2021-13-01" is not a real date written YYYY-MM-DD',
      'journal_issn "nope" is not an ISSN (XXXX-XXXX)',
      'unknown field "extra"',
    ]);
  });

  it('refuses an abstract given twice', () => {
    expect(
      errorOf({ ...complete, paragraphs: [{ section: 'Abstract', text: 'again' }] }),
    ).toMatch(/either as "abstract" or as paragraphs of section "Abstract"/);
  });
});
