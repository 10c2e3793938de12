/**
 * A Chinese, Japanese or Korean word inside a sentence is found (analyzer.ts: CJK runs indexed as pairs of
 * characters): a run had been one term, so `topics=场所细胞` counted 0 articles whose abstract began with it,
 * and a question in Chinese found nothing.
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
    article('zh', ['场所细胞编码空间位置。 Place cells encode position.']),
    article('ja', ['海馬の場所細胞はデータを符号化する。']),
    article('ko', ['해마의 장소 세포는 위치를 부호화한다.']),
    article('en', ['grid cells in the entorhinal cortex']),
  ]));
});
afterAll(() => close());

const found = async (query: string) => (await searcher.search(query, 10, all)).map((hit) => searcher.articleIdOf(hit));

describe('CJK text', () => {
  it('is found by a word inside a sentence, in queries and in topic filters', async () => {
    expect(await found('场所细胞')).toEqual(['zh']);
    expect(await found('空间')).toEqual(['zh']);
    expect(await found('場所細胞')).toEqual(['ja']);
    expect(await found('データ')).toEqual(['ja']);
    expect(await found('세포')).toEqual(['ko']);
    expect(searcher.countArticles(compileFilterSpec({ topics: ['场所细胞'] }))).toBe(1);
    expect(searcher.countArticles(compileFilterSpec({ topics: ['编码'] }))).toBe(1);
    // Its English words are found as before.
    expect(await found('position')).toEqual(['zh']);
  });
});
