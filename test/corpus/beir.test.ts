import { describe, expect, it } from 'vitest';
import { articlesOf, errorsOf, fixtureDir, readAll, writeFixture } from './fixtures.js';

describe('beir reader', () => {
  it('turns each document into one Abstract paragraph with empty metadata', async () => {
    const dir = await fixtureDir();
    const lines = [
      { _id: '4983', title: ' Newborn white matter ', text: 'Alterations of the architecture.', metadata: {} },
      { _id: 'd2', title: '', text: 'A document without a title.' },
    ].map((doc) => JSON.stringify(doc));
    const file = await writeFixture(dir, 'corpus.jsonl', lines.join('\n') + '\n');
    const events = await readAll(file, 'beir');
    expect(errorsOf(events)).toEqual([]);
    expect(events.map((e) => e.source)).toEqual([
      { file, line: 1 },
      { file, line: 2 },
    ]);
    expect(articlesOf(events)).toEqual([
      {
        article_id: '4983',
        title: 'Newborn white matter',
        authors: [],
        article_doi: null,
        pubmed_id: null,
        date: null,
        article_type: 'article',
        journal_issn: null,
        journal_name: null,
        cited_by: null,
        impact_factor: null,
        paragraphs: [{ section: 'Abstract', text: 'Alterations of the architecture.' }],
      },
      expect.objectContaining({ article_id: 'd2', title: '', paragraphs: [{ section: 'Abstract', text: 'A document without a title.' }] }),
    ]);
  });

  it('reports empty text, missing ids and bad JSON per line', async () => {
    const dir = await fixtureDir();
    const lines = [
      JSON.stringify({ _id: 'empty', title: 'T', text: '   ' }),
      JSON.stringify({ title: 'no id', text: 'x' }),
      'not json',
      JSON.stringify({ _id: 7, title: 'numeric id', text: 'kept' }),
    ];
    const file = await writeFixture(dir, 'bad.jsonl', lines.join('\n'));
    const events = await readAll(file, 'beir');
    expect(errorsOf(events).map((e) => [e.source.line, e.message])).toEqual([
      [1, 'document empty: text is empty'],
      [2, '_id must be a non-empty string'],
      [3, expect.stringMatching(/^invalid JSON/)],
    ]);
    expect(articlesOf(events).map((a) => a.article_id)).toEqual(['7']);
  });
});
