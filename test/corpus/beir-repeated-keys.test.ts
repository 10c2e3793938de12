/**
 * A BEIR line giving one of its fields twice is refused as articles-jsonl
 * refuses one: JSON.parse would keep the last value silently, deciding which
 * title or text is indexed. The line is reported and the file read on.
 */
import { describe, expect, it } from 'vitest';
import { articlesOf, errorsOf, fixtureDir, readAll, writeFixture } from './fixtures.js';

describe('beir reader on repeated keys', () => {
  it('reports a line giving _id, title or text twice, and reads the other lines', async () => {
    const dir = await fixtureDir();
    const lines = [
      '{"_id":"twice-title","title":"First","title":"Second","text":"Body."}',
      '{"_id":"a","_id":"b","title":"T","text":"Body."}',
      '{"_id":"twice-text","title":"T","text":"kept?","text":"or this?","\\u0074itle":"again"}',
      '{"_id":"fine","title":"T","text":"Body."}',
    ];
    const file = await writeFixture(dir, 'corpus.jsonl', lines.join('\n') + '\n');
    const events = await readAll(file, 'beir');
    expect(errorsOf(events).map((e) => [e.source.line, e.message])).toEqual([
      [1, 'field "title" is given twice'],
      [2, 'field "_id" is given twice'],
      [3, 'field "text" is given twice; field "title" is given twice'],
    ]);
    expect(articlesOf(events).map((a) => a.article_id)).toEqual(['fine']);
  });

  it('lets a key repeated inside metadata be: metadata is not read', async () => {
    const dir = await fixtureDir();
    const file = await writeFixture(dir, 'corpus.jsonl', '{"_id":"d1","title":"T","text":"Body.","metadata":{"url":"x","url":"y"}}\n');
    const events = await readAll(file, 'beir');
    expect(errorsOf(events)).toEqual([]);
    expect(articlesOf(events).map((a) => a.article_id)).toEqual(['d1']);
  });
});
