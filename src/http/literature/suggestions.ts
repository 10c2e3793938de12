/** GET /suggestions/article_types, /suggestions/author, /suggestions/journal. */
import type { FastifyPluginAsync } from 'fastify';
import type { LiteratureServices } from './services.js';
import { MAX_FILTER_VALUE_LENGTH, errorResponses, GUARDED_ERRORS, READ_PERMISSION } from './schemas.js';
import { typed } from '../typed.js';
import { ApiError, ErrorCode } from '../errors.js';
import { foldName } from '../../search/query/filter-spec.js';
import { VISIBLE_CHARACTER_PATTERN } from '../blank-text.js';

const limit = { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'Suggestions returned at most: 1 to 1000, default 100.' } as const;
const errors = errorResponses(400, 422, ...GUARDED_ERRORS);

/**
 * `text`, refused when matching sets it aside entirely: accents alone (U+0301) fold to the empty
 * string, which every name contains, and would suggest every author or journal.
 */
function matchable(parameter: string, text: string): string {
  if (foldName(text) === '') throw new ApiError(422, ErrorCode.INVALID_INPUT, `${parameter} is blank once accents are set aside`, { parameter });
  return text;
}

export const suggestionRoutes: FastifyPluginAsync<LiteratureServices> = async (app, { index }) => {
  const api = typed(app);
  app.get(
    '/suggestions/article_types',
    {
      schema: {
        summary: 'Article types with their number of articles, most frequent first',
        description:
          'Every article type of the index, once however it is spelt (case, spaces and punctuation aside), with how many articles have it ' +
          `(an article with several types counts under each). Takes no limit. ${READ_PERMISSION}`,
        tags: ['suggestions'],
        querystring: { type: 'object', properties: {}, additionalProperties: false },
        response: {
          200: {
            type: 'array',
            items: {
              type: 'object',
              properties: { article_type: { type: 'string' }, docs_in_db: { type: 'integer' } },
              required: ['article_type', 'docs_in_db'],
            },
          },
          ...errors,
        },
      },
    },
    async () => index.read(({ searcher }) => searcher.suggestions.articleTypes()),
  );

  api.get(
    '/suggestions/author',
    {
      schema: {
        summary: 'Authors whose name contains `name` (case- and accent-insensitive), best match first',
        description:
          'Best first: exact match, then prefix, then word prefix, then anywhere; more articles first within a rank, then alphabetical. ' +
          'Spellings that differ only in case, accents or spaces are one suggestion; docs_in_db is what article_count?authors= gives for it. ' +
          `No match is an empty list. ${READ_PERMISSION}`,
        tags: ['suggestions'],
        querystring: {
          type: 'object',
          properties: {
            name: {
              type: 'string',
              minLength: 1,
              maxLength: 200,
              pattern: VISIBLE_CHARACTER_PATTERN,
              description: 'Text the author\'s name must contain, case- and accent-insensitive: 1 to 200 characters, not blank.',
            },
            limit,
          },
          required: ['name'],
          additionalProperties: false,
        },
        response: {
          200: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, docs_in_db: { type: 'integer' } },
              required: ['name', 'docs_in_db'],
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const name = matchable('name', request.query.name);
      return index.read(({ searcher }) => searcher.suggestions.suggestAuthors(name, request.query.limit, MAX_FILTER_VALUE_LENGTH));
    },
  );

  api.get(
    '/suggestions/journal',
    {
      schema: {
        summary: 'Journals whose name contains every keyword (or whose ISSN is given), best match first',
        description:
          'Best first: exact match, then prefix, then word prefix, then anywhere; more articles first within a rank, then alphabetical. ' +
          `No match is an empty list. ${READ_PERMISSION}`,
        tags: ['suggestions'],
        querystring: {
          type: 'object',
          properties: {
            keywords: {
              type: 'string',
              minLength: 1,
              maxLength: 200,
              pattern: VISIBLE_CHARACTER_PATTERN,
              description: 'Words the journal name must all contain; a word that is an ISSN, or its start of four digits or more (with or without the dash), also matches that journal.',
            },
            limit,
          },
          required: ['keywords'],
          additionalProperties: false,
        },
        response: {
          200: {
            type: 'array',
            items: {
              type: 'object',
              properties: { journal_name: { type: 'string' }, journal_issn: { type: 'string' }, docs_in_db: { type: 'integer' } },
              required: ['journal_name', 'journal_issn', 'docs_in_db'],
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const keywords = matchable('keywords', request.query.keywords);
      return index.read(({ searcher }) => searcher.suggestions.suggestJournals(keywords, request.query.limit));
    },
  );
};
