/**
 * The literature routes copy pre-rendered JSON fragments into their responses
 * instead of serialising objects. This compares those bytes, byte for byte,
 * with what fastify's schema serialiser (fast-json-stringify, the routes'
 * response schemas) produces from the metadata objects built straight from
 * the ingested articles — on the demo corpus and on a generated corpus full
 * of escaping edge cases, over many queries, k and filters, and over several
 * segments with replaced articles.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abstractOf, paragraphIdOf, type ArticleInput, type ArticleMetadata, type ContextMetadata } from '../../src/corpus/model.js';
import { parseArticleLine } from '../../src/corpus/readers/articles-jsonl.js';
import { articleListingSchema, contextMetadataSchema } from '../../src/http/literature/schemas.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { wellFormed } from '../../src/search/stored/render.js';
import type { StoredCompression } from '../../src/search/stored/format.js';
import { fixtureApp, type Fixture } from './app-fixture.js';
import { edgeCaseCorpus, randomWords } from '../search/stored-corpus.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function demoArticles(): ArticleInput[] {
  return readFileSync(path.join(ROOT, 'data', 'demo', 'articles.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const parsed = parseArticleLine(line);
      if ('error' in parsed) throw new Error(parsed.error);
      return parsed.article;
    });
}

/** The article as the API shows it, built from the input (strings as UTF-8 storage returns them). */
function metadataOf(article: ArticleInput): ArticleMetadata {
  return {
    article_title: wellFormed(article.title),
    article_authors: article.authors.map(wellFormed),
    article_id: wellFormed(article.article_id),
    article_doi: article.article_doi && wellFormed(article.article_doi),
    pubmed_id: article.pubmed_id && wellFormed(article.pubmed_id),
    date: article.date,
    article_type: wellFormed(article.article_type),
    journal_issn: article.journal_issn,
    journal_name: article.journal_name && wellFormed(article.journal_name),
    cited_by: article.cited_by,
    impact_factor: article.impact_factor,
    abstract: wellFormed(abstractOf(article.paragraphs)),
  };
}

/** fastify with the routes' response schemas, answering whatever object it is handed. */
async function referenceSerialiser(): Promise<{ app: FastifyInstance; serialise: (route: string, value: unknown) => Promise<Buffer> }> {
  const app = Fastify();
  let current: unknown = null;
  app.get('/contexts', { schema: { response: { 200: { type: 'array', items: contextMetadataSchema } } } }, async () => current);
  app.get('/listing', { schema: { response: { 200: articleListingSchema } } }, async () => current);
  await app.ready();
  return {
    app,
    serialise: async (route, value) => {
      current = value;
      return (await app.inject({ method: 'GET', url: route })).rawPayload;
    },
  };
}

function comparesCorpus(
  name: string,
  articles: () => ArticleInput[],
  queries: () => string[],
  options: { maxSegmentBytes?: number; storedCompression?: StoredCompression; flags?: string[] } = {},
) {
  // Generous timeout: hundreds of responses of up to 1,000 contexts, serialised twice, on a shared machine.
  describe(`served bytes on ${name}`, { timeout: 300_000 }, () => {
    let fixture: Fixture;
    let reference: Awaited<ReturnType<typeof referenceSerialiser>>;
    let byId: Map<string, ArticleInput>;

    beforeAll(async () => {
      const corpus = articles();
      // The last copy of a repeated id is the live one, as ingestion replaces it.
      byId = new Map(corpus.map((a) => [wellFormed(a.article_id), a]));
      fixture = await fixtureApp(corpus, {}, options);
      reference = await referenceSerialiser();
    });
    afterAll(async () => {
      await reference?.app.close();
      await fixture?.close();
    });

    const contextOf = (segment: number, paragraph: number, rank: number): ContextMetadata => {
      const { segment: seg } = fixture.searcher.snapshot.segments[segment]!;
      const id = seg.articleIds.get(seg.paragraphArticle[paragraph]!);
      const article = byId.get(id)!;
      const position = paragraph - seg.articleFirstParagraph[seg.paragraphArticle[paragraph]!]!;
      return {
        ...metadataOf(article),
        paragraph: wellFormed(article.paragraphs[position]!.text),
        paragraph_id: wellFormed(paragraphIdOf(article.article_id, position)),
        section: wellFormed(article.paragraphs[position]!.section),
        context_id: rank,
        reranking_score: null,
      };
    };

    it('GET /retrieval/ answers the bytes the schema serialiser writes', async () => {
      let compared = 0;
      for (const [i, query] of queries().entries()) {
        const k = [1, 3, 10, 100, 1000][i % 5]!;
        const filters: Record<string, string> = i % 3 === 2 ? { date_from: '2000-01-01' } : {};
        const params = new URLSearchParams({ query, retriever_k: String(k), ...filters });
        const response = await fixture.app.inject({ method: 'GET', url: `/retrieval/?${params}` });
        const hits = await fixture.searcher.search(query, k, compileFilterSpec(filters));
        if (hits.length === 0) {
          expect(response.statusCode).toBe(404);
          continue;
        }
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        const expected = await reference.serialise('/contexts', hits.map((hit, rank) => contextOf(hit.segment, hit.paragraph, rank)));
        expect(response.rawPayload.equals(expected), `query "${query}" k=${k}`).toBe(true);
        compared++;
      }
      expect(compared).toBeGreaterThan(15);
    });

    it('GET /retrieval/article_listing answers the bytes the schema serialiser writes', async () => {
      const cases: Record<string, string>[] = [
        {},
        { size: '7', page: '2' },
        { sort_by_date: 'true', number_results: '30', size: '100' },
        ...queries().slice(0, 15).map((q) => ({ topics: q.split(' ')[0]!, size: '10' })),
      ];
      for (const query of cases) {
        const response = await fixture.app.inject({ method: 'GET', url: `/retrieval/article_listing?${new URLSearchParams(query)}` });
        expect(response.statusCode).toBe(200);
        const body = JSON.parse(response.body) as { items: { article_id: string }[]; total: number; page: number; size: number; pages: number };
        const expected = await reference.serialise('/listing', { ...body, items: body.items.map((item) => metadataOf(byId.get(item.article_id)!)) });
        expect(response.rawPayload.equals(expected), JSON.stringify(query)).toBe(true);
      }
    });
  });
}

comparesCorpus('the demo corpus', demoArticles, () => {
  const words = demoArticles().flatMap((a) => a.paragraphs.flatMap((p) => p.text.split(/\W+/).filter((w) => w.length > 3)));
  return randomWords(words, 100, 11);
});

const edgeQueries = () => randomWords(['alpha', 'beta', 'gamma', 'delta', 'quote', 'slash', 'emoji'], 40, 12);
comparesCorpus('a generated corpus of escaping edge cases', () => edgeCaseCorpus(200, 5), edgeQueries);
// Small segments: hits from many segments in one response, replaced articles across them.
comparesCorpus('the edge-case corpus in many segments', () => edgeCaseCorpus(200, 6), edgeQueries, { maxSegmentBytes: 64 * 1024 });
comparesCorpus('the edge-case corpus, stored deflated', () => edgeCaseCorpus(200, 7), edgeQueries, { storedCompression: 'deflate' });
// A search pool: responses of 100 hits and more are assembled by its worker threads, in shares written into one shared body.
comparesCorpus('the edge-case corpus in many segments, assembled on 2 search threads', () => edgeCaseCorpus(200, 8), edgeQueries, {
  maxSegmentBytes: 64 * 1024,
  flags: ['--search-threads', '2'],
});
