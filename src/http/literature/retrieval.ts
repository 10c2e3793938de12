/** GET /retrieval/ (paragraph search), /retrieval/article_count and /retrieval/article_listing. */
import type { FastifyPluginAsync } from 'fastify';
import type { LiteratureServices } from './services.js';
import { ApiError, ErrorCode, errorResponseSchema } from '../errors.js';
import { articleMetadataSchema, contextMetadataSchema, filterProperties, filtersOf } from './schemas.js';
import type { FilterInput } from '../../search/query/filter-spec.js';

export const NO_DOCUMENT_MESSAGE = 'No document found. Modify the filters or the query and try again.';

/** What fastify sends with a body its serialiser wrote. */
const JSON_TYPE = 'application/json; charset=utf-8';

const errors = { 404: errorResponseSchema, 413: errorResponseSchema, 422: errorResponseSchema };

export const retrievalRoutes: FastifyPluginAsync<LiteratureServices> = async (app, { searcher, library, config }) => {
  // The spec's path has the trailing slash; the bare one is accepted too (hidden from OpenAPI).
  for (const url of ['/retrieval/', '/retrieval']) {
    app.get<{ Querystring: FilterInput & { query: string; retriever_k: number } }>(
      url,
      {
        schema: {
          hide: url === '/retrieval',
          summary: 'BM25 paragraph search under the filters',
          tags: ['retrieval'],
          querystring: {
            type: 'object',
            properties: {
              query: { type: 'string', minLength: 1, maxLength: config.maxQueryLength },
              retriever_k: { type: 'integer', minimum: 1, maximum: 1000, default: 500 },
              ...filterProperties,
            },
            required: ['query'],
            additionalProperties: false,
          },
          response: { 200: { type: 'array', items: contextMetadataSchema }, ...errors },
        },
      },
      async (request, reply) => {
        const { query, retriever_k, ...filters } = request.query;
        const hits = await searcher.search(query, retriever_k, filtersOf(filters));
        if (hits.length === 0) throw new ApiError(404, ErrorCode.NO_DOCUMENTS, NO_DOCUMENT_MESSAGE);
        // Bytes the response schema would produce, copied from the stored fragments (no serialiser pass).
        return reply.type(JSON_TYPE).send(library.contextsJson(hits));
      },
    );
  }

  app.get<{ Querystring: FilterInput }>(
    '/retrieval/article_count',
    {
      schema: {
        summary: 'Exact number of articles matching the filters',
        tags: ['retrieval'],
        querystring: { type: 'object', properties: filterProperties, additionalProperties: false },
        response: {
          200: { type: 'object', properties: { article_count: { type: 'integer' } }, required: ['article_count'] },
          ...errors,
        },
      },
    },
    async (request) => ({ article_count: searcher.countArticles(filtersOf(request.query)) }),
  );

  app.get<{ Querystring: FilterInput & { number_results: number; size: number; page: number; sort_by_date: boolean } }>(
    '/retrieval/article_listing',
    {
      schema: {
        summary: 'Articles matching the filters, paginated',
        description:
          'Fetches `number_results` articles (by best paragraph score when there are text filters, else newest first; ' +
          'newest first when sort_by_date) and returns page `page` of size `size`. Pages past the end are empty.',
        tags: ['retrieval'],
        querystring: {
          type: 'object',
          properties: {
            ...filterProperties,
            number_results: { type: 'integer', minimum: 1, maximum: 10_000, default: 100 },
            size: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
            page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
            sort_by_date: { type: 'boolean', default: false },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            type: 'object',
            properties: {
              items: { type: 'array', items: articleMetadataSchema },
              total: { type: 'integer' },
              page: { type: 'integer' },
              size: { type: 'integer' },
              pages: { type: 'integer' },
            },
            required: ['items', 'total', 'page', 'size', 'pages'],
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { number_results, size, page, sort_by_date, ...filters } = request.query;
      const articles = searcher.listArticles(filtersOf(filters), number_results, sort_by_date);
      const items = articles.slice((page - 1) * size, page * size);
      const body = library.listingJson({ items, total: articles.length, page, size, pages: Math.ceil(articles.length / size) });
      return reply.type(JSON_TYPE).send(body);
    },
  );
};
