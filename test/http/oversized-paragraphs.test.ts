/**
 * Paragraphs over --max-paragraph-length are not given to the generator and
 * are cut in retrieval responses (issue 12 item 12).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { article } from '../search/helpers.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import type { Context, GenerateOptions, Generator } from '../../src/llm/types.js';

const LIMIT = 1000;
/** Under the limit in characters, over it in stored (UTF-8 JSON) bytes: must not be cut. */
const WIDE = `Zebrafish fins: ${'é"ü\\'.repeat(200)}`;
const GIANT = `Gigantic tables of zebrafish measurements follow. ${'zebrafish measurement value '.repeat(400)}`.trim();

/** The extractive generator, remembering the contexts it was given. */
class RecordingGenerator implements Generator {
  readonly kind = 'extractive' as const;
  readonly description = 'recording';
  readonly seen: Context[][] = [];
  private readonly inner = new ExtractiveGenerator();
  generate(question: string, contexts: Context[], options?: GenerateOptions) {
    this.seen.push(contexts);
    return this.inner.generate(question, contexts, options);
  }
  async close() {}
}

const generator = new RecordingGenerator();
let fixture: Fixture;
beforeAll(async () => {
  const articles = [
    article('giant-1', [], {
      title: 'Zebrafish data dump',
      paragraphs: [
        { section: 'Abstract', text: GIANT },
        { section: 'Results', text: 'Zebrafish larvae swim towards light.' },
      ],
    }),
    article('small-2', ['Zebrafish hearts regenerate after injury.'], { title: 'Regeneration' }),
    article('wide-3', [], { title: 'Accented fins', paragraphs: [{ section: 'Abstract', text: WIDE }] }),
  ];
  fixture = await fixtureApp(articles, { generator: () => generator }, { flags: ['--max-paragraph-length', String(LIMIT)] });
});
afterAll(() => fixture.close());

describe('oversized paragraphs', () => {
  it('are measured in characters: a text under the limit whose stored bytes are over it is sent whole', async () => {
    expect(WIDE.length).toBeLessThan(LIMIT);
    expect(Buffer.byteLength(JSON.stringify(WIDE))).toBeGreaterThan(LIMIT);
    const response = await fixture.app.inject({ method: 'GET', url: '/retrieval/?query=fins&retriever_k=5' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject([{ article_id: 'wide-3', paragraph: WIDE, abstract: WIDE }]);
    const listing = await fixture.app.inject({ method: 'GET', url: '/retrieval/article_listing?size=10' });
    expect(listing.json().items.find((item: { article_id: string }) => item.article_id === 'wide-3').abstract).toBe(WIDE);
  });


  it('are not sent to the generator', async () => {
    const response = await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'zebrafish larvae swim towards light' } });
    expect(response.statusCode).toBe(200);
    const contexts = generator.seen.at(-1)!;
    expect(contexts.length).toBeGreaterThan(0);
    for (const context of contexts) expect(context.text.length).toBeLessThan(LIMIT);
    const metadata = response.json().metadata;
    expect(metadata.map((m: { article_id: string }) => m.article_id)).toContain('giant-1');
    for (const item of metadata) {
      expect(item.paragraph.length).toBeLessThan(LIMIT);
      expect(item.abstract.length).toBeLessThan(LIMIT + 100); // the giant abstract, cut
    }
  });

  it('leave 404 code 1 when only they match', async () => {
    const response = await fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'gigantic tables' } });
    expect(response.statusCode).toBe(404);
    expect(response.json().detail.code).toBe(1);
    expect(response.json().detail.reason).toMatch(/longer than --max-paragraph-length \(\d+ characters\)/);
  });

  it('are cut in paragraph search and listings, saying so', async () => {
    const hits = (await fixture.app.inject({ method: 'GET', url: '/retrieval/?query=gigantic%20tables' })).json();
    expect(hits[0].article_id).toBe('giant-1');
    expect(hits[0].paragraph.startsWith(GIANT.slice(0, LIMIT))).toBe(true);
    expect(hits[0].paragraph).toContain(`[cut at ${LIMIT} of ${GIANT.length} characters]`);
    expect(hits[0].abstract).toBe(hits[0].paragraph);
    const listing = (await fixture.app.inject({ method: 'GET', url: '/retrieval/article_listing?topics=zebrafish' })).json();
    const giant = listing.items.find((item: { article_id: string }) => item.article_id === 'giant-1');
    expect(giant.abstract.length).toBeLessThan(LIMIT + 100);
    const small = listing.items.find((item: { article_id: string }) => item.article_id === 'small-2');
    expect(small.abstract).toBe('');
  });
});
