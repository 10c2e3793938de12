/** Validation errors say what is wrong in words a user can act on (issue 12 item 7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { fixtureApp } from './app-fixture.js';

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => ({ app, close } = await fixtureApp()));
afterAll(() => close());

async function rejects(request: InjectOptions) {
  const response = await app.inject(request);
  expect(response.statusCode).toBe(422);
  return response.json().detail as { code: number; detail: string; parameter: string };
}

describe('validation messages', () => {
  it.each([
    ['/retrieval/article_listing?page=1&page=2', 'page'],
    ['/retrieval/article_listing?size=5&size=5', 'size'],
    ['/retrieval/article_count?date_from=2010-01-01&date_from=2011-01-01', 'date_from'],
    ['/retrieval/?query=cells&query=grid', 'query'],
    ['/suggestions/author?name=ada&name=jose', 'name'],
  ])('%s says the parameter may be given once', async (url, parameter) => {
    const detail = await rejects({ method: 'GET', url });
    expect(detail).toMatchObject({ code: 8, parameter });
    expect(detail.detail).toBe(`${parameter} may be given only once`);
  });

  it('a repeated parameter that is invalid anyway still says so when it is given once', async () => {
    const detail = await rejects({ method: 'GET', url: '/retrieval/article_listing?page=x' });
    expect(detail.detail).toBe('page must be a whole number such as 2');
  });

  it.each([
    ['/retrieval/article_count?journals=1553-73', 'journals', 'journals must be ISSNs written XXXX-XXXX, got "1553-73"'],
    ['/retrieval/article_listing?journals=0007-0920&journals=issn', 'journals', 'journals must be ISSNs written XXXX-XXXX, got "issn"'],
    ['/retrieval/article_count?date_from=2020-1-1', 'date_from', 'date_from must be a real date written YYYY-MM-DD, got "2020-1-1"'],
    ['/retrieval/?query=cells&date_to=yesterday', 'date_to', 'date_to must be a real date written YYYY-MM-DD, got "yesterday"'],
  ])('%s names the shape expected, not a regular expression', async (url, parameter, message) => {
    const detail = await rejects({ method: 'GET', url });
    expect(detail).toMatchObject({ code: 8, parameter, detail: message });
  });

  it('an ISSN whose check character is a lower-case x is the same journal', async () => {
    const count = async (issn: string) => (await app.inject({ method: 'GET', url: `/retrieval/article_count?journals=${issn}` })).json().article_count;
    expect(await count('1234-567x')).toBe(await count('1234-567X'));
    expect((await app.inject({ method: 'GET', url: '/retrieval/article_count?journals=1234-567x' })).statusCode).toBe(200);
  });

  it('date_from after date_to is a 422 naming both', async () => {
    for (const route of ['/retrieval/article_count', '/retrieval/article_listing', '/retrieval/?query=cells']) {
      const url = `${route}${route.includes('?') ? '&' : '?'}date_from=2020-01-01&date_to=2019-12-31`;
      const detail = await rejects({ method: 'GET', url });
      expect(detail.code).toBe(8);
      expect(detail.parameter).toBe('date_from');
      expect(detail.detail).toContain('date_from 2020-01-01');
      expect(detail.detail).toContain('date_to 2019-12-31');
    }
    const same = await app.inject({ method: 'GET', url: '/retrieval/article_count?date_from=2010-05-01&date_to=2010-05-01' });
    expect(same.json()).toEqual({ article_count: 1 });
  });

  it.each([
    ['/suggestions/author?name=%20%20', 'name'],
    ['/suggestions/journal?keywords=%09', 'keywords'],
    // Control characters alone, which no stored name holds: a name of them had been answered 200 [].
    ['/suggestions/author?name=%00', 'name'],
    ['/suggestions/author?name=%07%08', 'name'],
    ['/suggestions/journal?keywords=%1B', 'keywords'],
  ])('blank suggestion text %s says it is blank', async (url, parameter) => {
    const detail = await rejects({ method: 'GET', url });
    expect(detail).toMatchObject({ code: 8, parameter, detail: `${parameter} is blank` });
  });

  it.each([
    ['/suggestions/author?name=%CC%81', 'name'],
    ['/suggestions/journal?keywords=%CC%81%20%CC%88', 'keywords'],
  ])('suggestion text of accents alone (%s), which would match every name, is refused as blank', async (url, parameter) => {
    const detail = await rejects({ method: 'GET', url });
    expect(detail).toMatchObject({ code: 8, parameter, detail: `${parameter} is blank once accents are set aside` });
  });

  it('an empty filter value says it is empty', async () => {
    const detail = await rejects({ method: 'GET', url: '/retrieval/article_count?date_to=' });
    expect(detail).toMatchObject({ code: 8, parameter: 'date_to', detail: 'date_to is empty' });
  });

  it('a blank question says it is blank', async () => {
    const detail = await rejects({ method: 'POST', url: '/qa/generative', payload: { query: '   ' } });
    expect(detail).toMatchObject({ code: 8, parameter: 'query', detail: 'query is blank' });
    const control = await rejects({ method: 'POST', url: '/qa/generative', payload: { query: '\u0000\u0007' } });
    expect(control).toMatchObject({ code: 8, parameter: 'query', detail: 'query is blank' });
  });
});

describe('numbers and types', () => {
  it.each([
    '/retrieval/?query=grid&retriever_k=Infinity',
    '/retrieval/?query=grid&retriever_k=1e999',
    '/retrieval/?query=grid&retriever_k=-Infinity',
    '/retrieval/article_listing?number_results=Infinity',
    '/retrieval/article_listing?size=-Infinity&page=Infinity',
    '/suggestions/author?name=a&limit=Infinity',
  ])('%s: an infinite number is out of bounds like any other (422, not a 500 nor an unbounded answer)', async (url) => {
    const detail = await rejects({ method: 'GET', url });
    expect(detail.code).toBe(8);
    expect(detail.detail).toMatch(/finite number|must be/);
  });

  it.each([
    ['/retrieval/?query=grid&retriever_k=0x10', 'retriever_k'],
    ['/retrieval/?query=grid&retriever_k=%205', 'retriever_k'],
    ['/retrieval/article_listing?page=0b1', 'page'],
    ['/retrieval/article_listing?page=%2B2', 'page'],
    ['/retrieval/article_listing?page=%201', 'page'],
    ['/retrieval/article_listing?size=0x10', 'size'],
    ['/suggestions/author?name=a&limit=0o7', 'limit'],
  ])('%s: a number in a query string is written in decimal, and its refusal says what a whole number looks like', async (url, parameter) => {
    expect(await rejects({ method: 'GET', url })).toMatchObject({ code: 8, parameter, detail: `${parameter} must be a whole number such as 2` });
  });

  it.each([
    ['/retrieval/article_listing?page=1.5', 'page'],
    ['/retrieval/article_listing?page=', 'page'],
    ['/retrieval/article_listing?size=2e-1', 'size'],
    ['/retrieval/?query=grid&reranker_k=many', 'reranker_k'],
    ['/suggestions/journal?keywords=neuron&limit=0.5', 'limit'],
  ])('%s: a value that is no whole number is refused in the same words as one not written in decimal', async (url, parameter) => {
    expect(await rejects({ method: 'GET', url })).toMatchObject({ code: 8, parameter, detail: `${parameter} must be a whole number such as 2` });
  });

  it.each([
    ['/retrieval/?query=grid&retriever_k=1e400', 'retriever_k'],
    ['/retrieval/?query=grid&retriever_k=Infinity', 'retriever_k'],
    ['/retrieval/article_listing?page=-1e400', 'page'],
  ])('%s: a whole number that is not finite is refused in the words a JSON body gets', async (url, parameter) => {
    expect(await rejects({ method: 'GET', url })).toMatchObject({ code: 8, parameter, detail: `${parameter} must be a whole number such as 2` });
    const body = await rejects({ method: 'POST', url: '/qa/generative', headers: { 'content-type': 'application/json' }, payload: '{"query":"grid","retriever_k":1e400}' });
    expect(body.detail).toBe('retriever_k must be a whole number such as 2');
  });

  it('a whole number in a QA body is refused in the same words', async () => {
    const detail = await rejects({ method: 'POST', url: '/qa/generative', payload: { query: 'place cells', retriever_k: 2.5 } });
    expect(detail).toMatchObject({ code: 8, parameter: 'retriever_k', detail: 'retriever_k must be a whole number such as 2' });
  });

  it('whole numbers written with a fraction of zero or an exponent are still read', async () => {
    for (const url of ['/retrieval/article_listing?page=1e2', '/retrieval/article_listing?page=1.0', '/retrieval/article_listing?size=1e1', '/retrieval/?query=cells&retriever_k=2e0']) {
      expect([url, (await app.inject({ method: 'GET', url })).statusCode]).toEqual([url, 200]);
    }
  });

  it('decimal numbers, with a fraction or an exponent where the type allows, are read as before', async () => {
    expect((await app.inject({ method: 'GET', url: '/retrieval/?query=cells&retriever_k=1e2' })).statusCode).not.toBe(422);
    expect((await app.inject({ method: 'GET', url: '/retrieval/article_listing?number_results=20&page=1' })).statusCode).toBe(200);
  });

  it.each(['/qa/generative', '/qa/streamed_generative'])('%s refuses an infinite retriever_k in the body, as text or as 1e999', async (url) => {
    for (const payload of ['{"query":"place cells","retriever_k":"Infinity"}', '{"query":"place cells","retriever_k":1e999}']) {
      const detail = await rejects({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
      expect(detail.code).toBe(8);
    }
  });

  it('a JSON body keeps its types: a number, a boolean or an array where text is expected is refused, not converted', async () => {
    for (const body of [{ query: 5 }, { query: true }, { query: ['place cells'] }, { query: 'place cells', retriever_k: '5' }, { query: 'place cells', use_reranker: 'true' }]) {
      const detail = await rejects({ method: 'POST', url: '/qa/generative', payload: body });
      expect(detail.code).toBe(8);
    }
    // Query strings are text: their numbers and repeatable filters are still read from it.
    const listed = await app.inject({ method: 'GET', url: '/retrieval/article_listing?number_results=3&article_types=research-article' });
    expect(listed.statusCode).toBe(200);
  });
});

describe('missing values and bodies of the wrong shape, in words of our own', () => {
  it('a missing required parameter says it is required', async () => {
    expect(await rejects({ method: 'GET', url: '/retrieval/?retriever_k=5' })).toEqual({ code: 8, parameter: 'query', detail: 'query is required' });
    expect(await rejects({ method: 'GET', url: '/suggestions/author' })).toEqual({ code: 8, parameter: 'name', detail: 'name is required' });
    expect(await rejects({ method: 'POST', url: '/qa/generative', payload: { retriever_k: 5 } })).toEqual({ code: 8, parameter: 'query', detail: 'query is required' });
  });

  it.each(['[]', '"place cells"', '5', 'null'])('a QA body %s that is no object says the body must be a JSON object', async (payload) => {
    const detail = await rejects({ method: 'POST', url: '/qa/generative', headers: { 'content-type': 'application/json' }, payload });
    expect(detail).toEqual({ code: 8, parameter: 'body', detail: 'the body must be a JSON object' });
  });
});

describe('invisible text is blank', () => {
  // Zero-width space, word joiner, soft hyphen, BOM, Mongolian vowel separator (default-ignorable), next line U+0085 (White_Space, not `\s`).
  const INVISIBLE = ['%E2%80%8B', '%E2%81%A0%E2%80%8B', '%C2%AD', '%EF%BB%BF', '%E1%A0%8E', '%C2%85', '%E2%80%8B%20%C2%A0'];

  it.each(INVISIBLE)('a /retrieval/ query of %s alone is 422 "query is blank", not a search that finds nothing', async (text) => {
    expect(await rejects({ method: 'GET', url: `/retrieval/?query=${text}` })).toEqual({ code: 8, parameter: 'query', detail: 'query is blank' });
  });

  it.each(INVISIBLE)('a question of %s alone is 422 "query is blank"', async (text) => {
    const payload = { query: decodeURIComponent(text) };
    for (const url of ['/qa/generative', '/qa/streamed_generative']) {
      expect(await rejects({ method: 'POST', url, payload })).toEqual({ code: 8, parameter: 'query', detail: 'query is blank' });
    }
  });

  it.each(INVISIBLE)('an author name or journal keywords of %s alone are 422 "is blank", not an empty list', async (text) => {
    expect(await rejects({ method: 'GET', url: `/suggestions/author?name=${text}` })).toEqual({ code: 8, parameter: 'name', detail: 'name is blank' });
    expect(await rejects({ method: 'GET', url: `/suggestions/journal?keywords=${text}` })).toEqual({ code: 8, parameter: 'keywords', detail: 'keywords is blank' });
  });

  it('visible text with an invisible character in it is searched as before', async () => {
    expect((await app.inject({ method: 'GET', url: '/retrieval/?query=place%E2%80%8B%20cells' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/suggestions/author?name=%E2%80%8Bada' })).statusCode).toBe(200);
  });
});

describe('blank text and unknown parameters, alike on every literature route', () => {
  it('a blank /retrieval/ query is 422 "query is blank", as a blank question is', async () => {
    expect(await rejects({ method: 'GET', url: '/retrieval/?query=%20%20' })).toMatchObject({ code: 8, parameter: 'query', detail: 'query is blank' });
    expect(await rejects({ method: 'POST', url: '/qa/generative', payload: { query: '   ' } })).toMatchObject({ code: 8, detail: 'query is blank' });
  });

  it('/settings refuses an unknown parameter like the other routes', async () => {
    expect(await rejects({ method: 'GET', url: '/settings?x=1' })).toMatchObject({ code: 8, parameter: 'x' });
    expect((await app.inject({ method: 'GET', url: '/settings' })).statusCode).toBe(200);
  });

  it('a filter value with nothing to match is 422 naming it, not a count of zero', async () => {
    for (const [parameter, value] of [
      ['topics', '%21%21'],
      ['authors', '%CC%81'],
      ['article_types', '-'],
    ]) {
      expect(await rejects({ method: 'GET', url: `/retrieval/article_count?${parameter}=${value}` })).toMatchObject({
        code: 8,
        parameter,
        detail: expect.stringMatching(new RegExp(`^${parameter} value ".*" has no (searchable word|letter or digit)`)),
      });
    }
    expect((await app.inject({ method: 'GET', url: '/retrieval/article_count?authors=Jos%C3%A9%20N%C3%BA%C3%B1ez&article_types=research-article' })).statusCode).toBe(200);
  });

  it('a long unknown name is quoted by its start, in the message and as the parameter', async () => {
    // An astral character at the cut: it is kept whole or left out, never halved into a lone surrogate.
    const name = `${'p'.repeat(63)}${'𝛼'.repeat(5_000)}`;
    const shown = `${'p'.repeat(63)}𝛼… (5063 characters)`;
    const fromQuery = await rejects({ method: 'GET', url: `/retrieval/?query=cells&${encodeURIComponent(name)}=1` });
    expect(fromQuery).toMatchObject({ code: 8, parameter: shown, detail: `unknown parameter "${shown}" in querystring` });
    const fromBody = await rejects({ method: 'POST', url: '/qa/generative', payload: { query: 'cells', [name]: 1 } });
    expect(fromBody).toMatchObject({ code: 8, parameter: shown, detail: `unknown parameter "${shown}" in body` });
  });

  it('a parameter without a name is named as such', async () => {
    expect(await rejects({ method: 'GET', url: '/retrieval/?query=cells&=x' })).toMatchObject({ code: 8, parameter: '', detail: 'a parameter without a name ("=value") in querystring' });
  });

  it('a body key without a name is named in the words of a body, not of a query string', async () => {
    const detail = await rejects({ method: 'POST', url: '/qa/generative', headers: { 'content-type': 'application/json' }, payload: '{"query":"x","":1}' });
    expect(detail).toEqual({ code: 8, parameter: '', detail: 'a key without a name ("") in body' });
  });

  it.each([
    ['/retrieval/?query[]=cells', 'query[]', ' (did you mean query?)'],
    ['/retrieval/?query=cells&retriever_k[]=2', 'retriever_k[]', ' (did you mean retriever_k?)'],
    ['/suggestions/author?name[]=ada', 'name[]', ' (did you mean name?)'],
    // Unknown, and reported before the missing query: a misspelt parameter is what the client must fix.
    ['/retrieval/?querry=cells', 'querry', ''],
    ['/retrieval/?foo[]=1', 'foo[]', ''],
  ])('%s: an unknown parameter is named, before a missing one, with the known one it may mean', async (url, parameter, suggestion) => {
    const encoded = url.replace(/\[\]/g, '%5B%5D');
    for (const target of [url, encoded]) {
      expect(await rejects({ method: 'GET', url: target })).toEqual({ code: 8, parameter, detail: `unknown parameter "${parameter}" in querystring${suggestion}` });
    }
  });
});
