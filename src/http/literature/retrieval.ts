/** GET /retrieval/ (paragraph search), /retrieval/article_count and /retrieval/article_listing. */
import type { FastifyPluginAsync } from 'fastify';
import type { LiteratureServices } from './services.js';
import { articleListingSchema, contextMetadataSchema, errorResponses, filterProperties, filtersOf, GUARDED_ERRORS, READ_PERMISSION } from './schemas.js';
import { qaError, type QaServices } from './qa.js';
import { cutMetadata } from './oversized.js';
import { typed } from '../typed.js';
import { abortOnDisconnect, workStopped } from '../disconnect.js';
import { clientKey } from '../client-address.js';
import { VISIBLE_CHARACTER_PATTERN } from '../blank-text.js';
import { QUERY_LENGTH_DESCRIPTION, withinQueryLength } from './query-length.js';

/** What fastify sends with a body its serialiser wrote. */
const JSON_TYPE = 'application/json; charset=utf-8';

const errors = errorResponses(400, 422, ...GUARDED_ERRORS);

export const retrievalRoutes: FastifyPluginAsync<LiteratureServices & QaServices> = async (app, { index, config, qa }) => {
  const api = typed(app);
  // The spec's path has the trailing slash; the bare one is accepted too (hidden from OpenAPI).
  for (const url of ['/retrieval/', '/retrieval']) {
    api.get(
      url,
      {
        schema: {
          hide: url === '/retrieval',
          summary: 'BM25 paragraph search under the filters, optionally reranked',
          description:
            'The retriever_k paragraphs scoring best for the query by BM25 (title and paragraph text), among the articles the filters keep, ' +
            'each with its article\'s metadata; context_id is the BM25 rank (0-based). With a reranker configured and use_reranker, the ' +
            'reranker_k best of them in reranked order with their reranking_score. No paragraph found is 404 code 1 (a query of stop words ' +
            `or punctuation alone says so in detail.reason). Text over --max-paragraph-length is cut. ${READ_PERMISSION}`,
          tags: ['retrieval'],
          querystring: {
            type: 'object',
            properties: {
              query: { type: 'string', minLength: 1, pattern: VISIBLE_CHARACTER_PATTERN, description: QUERY_LENGTH_DESCRIPTION },
              retriever_k: { type: 'integer', minimum: 1, maximum: 1000, default: 500, description: 'Paragraphs retrieved by BM25: 1 to 1000, default 500.' },
              use_reranker: {
                type: 'boolean',
                default: true,
                description: 'Re-sort with the reranker and keep the reranker_k best; without a configured reranker, BM25 order and reranker_k is ignored.',
              },
              reranker_k: { type: 'integer', minimum: 1, maximum: 100, default: 8, description: 'Paragraphs kept after reranking.' },
              ...filterProperties,
            },
            required: ['query'],
            additionalProperties: false,
          },
          // Only paragraph search can find nothing (404) or be given a query over --max-query-length (413).
          response: { 200: { type: 'array', items: contextMetadataSchema }, ...errors, ...errorResponses(404, 413) },
        },
      },
      async (request, reply) => {
        const { query, retriever_k, use_reranker, reranker_k, ...filters } = request.query;
        const qaRequest = { query: withinQueryLength(query, config.maxQueryLength), retrieverK: retriever_k, useReranker: use_reranker, rerankerK: reranker_k };
        const limit = config.maxParagraphLength;
        const controller = abortOnDisconnect(reply);
        // The reranking counts against this client's share of the reranker's queue.
        const asker = { signal: controller.signal, caller: clientKey(request.ip) };
        return index.read(async (view) => {
          const { library } = view;
          const retrieved = await qa.retrieve(view, qaRequest, filtersOf(filters), asker).catch((error: unknown) => {
            if (controller.signal.aborted) return null;
            throw qaError(error) ?? error;
          });
          if (retrieved === null) {
            // Nobody is left to answer: not an error, and nothing to send.
            request.log.info(workStopped(request, 'reranking'));
            return reply.hijack();
          }
          const { candidates } = retrieved;
          // Bytes copied from the stored fragments when they are exactly what the objects below would give:
          // BM25 order without reranking scores, and no text to cut.
          const asStored = candidates.every(
            (c, rank) => c.rerankingScore === null && c.contextId === rank && library.withinLimit(library.hitArticle(c.hit), c.hit.paragraph, limit),
          );
          if (asStored) return reply.type(JSON_TYPE).send(await library.contextsJson(candidates.map((c) => c.hit)));
          return candidates.map((c) => cutMetadata(library.contextMetadata(c.hit, c.contextId, c.rerankingScore), limit));
        });
      },
    );
  }

  api.get(
    '/retrieval/article_count',
    {
      schema: {
        summary: 'Exact number of articles matching the filters',
        description:
          'How many articles every filter given keeps (none given: every article). An article matches the text filters (topics, regions) when ' +
          `one of its paragraphs does. A filter value with nothing to match (stop words or punctuation alone) is 422 naming it. ${READ_PERMISSION}`,
        tags: ['retrieval'],
        querystring: { type: 'object', properties: filterProperties, additionalProperties: false },
        response: {
          200: { type: 'object', properties: { article_count: { type: 'integer' } }, required: ['article_count'] },
          ...errors,
        },
      },
    },
    async (request) => index.read(({ searcher }) => ({ article_count: searcher.countArticles(filtersOf(request.query)) })),
  );

  api.get(
    '/retrieval/article_listing',
    {
      schema: {
        summary: 'Articles matching the filters, paginated',
        description:
          'Fetches `number_results` articles (by best paragraph score when there are text filters, else newest first; ' +
          'newest first when sort_by_date) and returns page `page` of size `size`. Pages past the end are empty. ' +
          `Abstracts over --max-paragraph-length are cut. ${READ_PERMISSION}`,
        tags: ['retrieval'],
        querystring: {
          type: 'object',
          properties: {
            ...filterProperties,
            number_results: {
              type: 'integer',
              minimum: 1,
              maximum: 10_000,
              default: 100,
              description: 'Articles fetched, then cut into pages: 1 to 10,000, default 100; total counts them.',
            },
            size: { type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'Articles per page: 1 to 100, default 50.' },
            page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1, description: 'The page (from 1, the default); one past the end has no items.' },
            sort_by_date: {
              type: 'boolean',
              default: false,
              description: 'Newest first (undated articles last) even with text filters, which otherwise order by best paragraph score.',
            },
          },
          additionalProperties: false,
        },
        response: {
          200: articleListingSchema,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { number_results, size, page, sort_by_date, ...filters } = request.query;
      const limit = config.maxParagraphLength;
      return index.read(async ({ searcher, library }) => {
        const articles = await searcher.listArticles(filtersOf(filters), number_results, sort_by_date);
        const items = articles.slice((page - 1) * size, page * size);
        const counts = { total: articles.length, page, size, pages: Math.ceil(articles.length / size) };
        // Bytes copied from the stored fragments unless an abstract must be cut.
        if (items.every((item) => library.withinLimit(item, null, limit))) return reply.type(JSON_TYPE).send(await library.listingJson({ items, ...counts }));
        return { items: items.map((item) => cutMetadata(library.articleMetadata(item), limit)), ...counts };
      });
    },
  );
};
