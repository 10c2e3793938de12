/**
 * What a browser may keep of the server's answers: the APIs' (a user's query and results, what a token let them
 * read) nothing, on disk or otherwise; the page's own files, which hold nothing of the user's, revalidated on use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { createNeuroLab } from './browser.js';

const WRITER = 'caching-writer-token';
const AUTH = {
  tokens: { [WRITER]: { realm: 'local', subject: 'writer' } },
  acls: { '/': { anonymous: ['resources/read'], 'local/writer': ['*'] } },
};
const writer = { authorization: `Bearer ${WRITER}` };

describe('caching of the server\'s answers', () => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await fixtureApp(undefined, {}, { auth: AUTH });
    await createNeuroLab(fixture.app, writer.authorization);
  });
  afterAll(() => fixture.close());

  it.each([
    ['a search', '/retrieval/?query=place%20cells', {}],
    ['a search with a token', '/retrieval/?query=place%20cells', writer],
    ['a count', '/retrieval/article_count', writer],
    ['a listing', '/retrieval/article_listing?page=1', writer],
    ['suggestions', '/suggestions/author?name=smith', {}],
    ['the projects a token may write', '/v1/projects?permission=resources/write', writer],
    ['a project', '/v1/projects/neuro/lab', writer],
    ['a refusal', '/v1/projects/neuro/missing', writer],
    ['the settings', '/settings', {}],
  ])('%s: Cache-Control: no-store', async (_, url, headers) => {
    const response = await fixture.app.inject({ url, headers });
    expect(response.statusCode).toBeLessThan(500);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it("a streamed answer too: its headers are written by the route, not the hooks", async () => {
    const response = await fixture.app.inject({ method: 'POST', url: '/qa/streamed_generative', headers: { 'content-type': 'application/json' }, payload: { query: 'place cells' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('the page and its files keep their own rule: revalidated on every use', async () => {
    for (const url of ['/ui/', '/ui/js/main.js', '/ui/app.css', '/docs']) {
      const response = await fixture.app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-cache');
    }
  });
});
