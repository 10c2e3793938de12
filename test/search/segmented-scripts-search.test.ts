/**
 * A Thai, Lao, Khmer or Burmese word inside a sentence is found (analyzer.ts: runs of these scripts cut into words
 * by ICU's dictionaries): a run had been one term, so a word of an abstract written in Thai found nothing, and the
 * folding had taken away the vowel and tone marks, so that words differing by them were one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Searcher } from '../../src/search/searcher.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { article, searcherOver } from './helpers.js';

let searcher: Searcher;
let close: () => Promise<void>;
const all = compileFilterSpec({});

beforeAll(async () => {
  ({ searcher, close } = await searcherOver([
    article('th', ['การทำงานของเซลล์ประสาทในสมองส่วนฮิปโปแคมปัส Place cells.']),
    article('th-near', ['บ้านอยู่ใกล้โรงพยาบาล']),
    article('lo', ['ຂ້ອຍຮັກພາສາລາວ']),
    article('km', ['ខ្ញុំស្រលាញ់ភាសាខ្មែរ']),
    article('my', ['မြန်မာစာသည်လှပသည်']),
    article('en', ['grid cells in the entorhinal cortex']),
  ]));
});
afterAll(() => close());

const found = async (query: string) => (await searcher.search(query, 10, all)).map((hit) => searcher.articleIdOf(hit));

describe('Thai, Lao, Khmer and Burmese text', () => {
  it('is found by a word inside a sentence, in queries and in topic filters', async () => {
    expect(await found('เซลล์ประสาท')).toEqual(['th']);
    expect(await found('สมอง')).toEqual(['th']);
    expect(await found('ทำงาน')).toEqual(['th']);
    expect(await found('ພາສາ')).toEqual(['lo']);
    expect(await found('ភាសាខ្មែរ')).toEqual(['km']);
    expect(await found('လှပ')).toEqual(['my']);
    expect(searcher.countArticles(compileFilterSpec({ topics: ['ฮิปโปแคมปัส'] }))).toBe(1);
    expect((await found('cells')).sort()).toEqual(['en', 'th']);
  });

  it('keeps the vowel and tone marks that tell words apart', async () => {
    // ใกล้ (near) is in the text; ใกล, the same letters without the tone mark, is no word of it.
    expect(await found('ใกล้')).toEqual(['th-near']);
    expect(await found('ใกล')).toEqual([]);
  });
});
