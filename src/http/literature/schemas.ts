/** JSON schemas shared by the literature routes: filters, article and context metadata. */
import { ApiError, ErrorCode, errorResponseSchema, REFUSALS_BEFORE_ROUTING } from '../errors.js';
import { compileFilterSpec, InvalidFilterError, type FilterInput, type FilterSpec } from '../../search/query/filter-spec.js';

/** Who may call a guarded literature route, as its description in /openapi.json says. */
export const READ_PERMISSION = 'Needs resources/read on the literature project (literature/articles by default; every caller holds it on a server without an auth file).';

const MAX_FILTER_VALUES = 50;
export const MAX_FILTER_VALUE_LENGTH = 500;

const stringList = (description: string) =>
  ({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH },
    maxItems: MAX_FILTER_VALUES,
    description,
  }) as const;

// Their shape is checked with the filters (compileFilterSpec), whose message names it: a schema pattern's names only a regular expression.
const date = (description: string) => ({ type: 'string', minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH, description }) as const;

export const filterProperties = {
  topics: stringList('Topics, AND-ed; the words of one topic are AND-ed anywhere in a paragraph.'),
  regions: stringList('Brain regions, OR-ed; the words of one region are AND-ed anywhere in a paragraph.'),
  article_types: stringList('Article types, OR-ed (case-insensitive).'),
  authors: stringList('Author full names, OR-ed (case- and accent-insensitive).'),
  journals: {
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH },
    maxItems: MAX_FILTER_VALUES,
    description: 'Journal ISSNs (XXXX-XXXX, the check character X in either case), OR-ed.',
  },
  date_from: date('Earliest publication date, inclusive (YYYY-MM-DD); after date_to is 422.'),
  date_to: date('Latest publication date, inclusive (YYYY-MM-DD).'),
} as const;

/** Validates and compiles the filters of a request; bad values become 422 naming the parameter. */
export function filtersOf(query: FilterInput): FilterSpec {
  try {
    const spec = compileFilterSpec(query);
    if (spec.dateFrom !== null && spec.dateTo !== null && spec.dateFrom > spec.dateTo) {
      // An empty range is a mistake (swapped bounds), not a question whose answer is "nothing".
      throw new InvalidFilterError('date_from', `date_from ${query.date_from} is after date_to ${query.date_to}; no date can match`);
    }
    return spec;
  } catch (error) {
    if (error instanceof InvalidFilterError) {
      throw new ApiError(422, ErrorCode.INVALID_INPUT, error.message, { parameter: error.parameter });
    }
    throw error;
  }
}

const nullableString = { type: ['string', 'null'] } as const;

const articleMetadataProperties = {
  article_title: { type: 'string' },
  article_authors: { type: 'array', items: { type: 'string' } },
  article_id: { type: 'string' },
  article_doi: nullableString,
  pubmed_id: nullableString,
  date: nullableString,
  article_type: { type: 'string' },
  journal_issn: nullableString,
  journal_name: nullableString,
  cited_by: { type: ['integer', 'null'], description: 'Citations; null when the source does not give them.' },
  impact_factor: { type: ['number', 'null'], description: 'Journal impact factor; null when the source does not give it.' },
  abstract: { type: 'string' },
} as const;

const articleMetadataSchema = {
  type: 'object',
  properties: articleMetadataProperties,
  required: Object.keys(articleMetadataProperties),
} as const;

export const contextMetadataSchema = {
  type: 'object',
  properties: {
    ...articleMetadataProperties,
    paragraph: { type: 'string' },
    paragraph_id: { type: 'string' },
    section: { type: 'string' },
    context_id: { type: 'integer' },
    reranking_score: { type: ['number', 'null'] },
  },
  required: [...Object.keys(articleMetadataProperties), 'paragraph', 'paragraph_id', 'section', 'context_id', 'reranking_score'],
} as const;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: `Malformed JSON body, or a URL that does not decode: a percent-escape of the query string that is not UTF-8 (code 8). ${REFUSALS_BEFORE_ROUTING[400]}`,
  401: 'Unknown or malformed bearer token (code 9).',
  403: 'The caller lacks resources/read on the literature project (code 10).',
  404: 'No document matches the query and filters (code 1).',
  413: 'Input too large (code 4).',
  415: 'The body is not application/json (code 8).',
  422: 'Invalid input; `parameter` names it (code 8).',
  429: 'Rate limit used up, or too many questions waiting for the model or rerankings for the reranker (code 5); see Retry-After.',
  502: 'Incomplete answer: the model reached its token limit (code 6); `answer` and `raw_answer` hold what it generated.',
  503: 'Server at --max-in-flight, or the caller at its --max-in-flight-per-client share (code 13, Retry-After), the language model or reranker unavailable (code 3), or the index damaged: a file truncated or changed since it was loaded (code 15).',
};

/** What every guarded literature route may answer besides its own errors: ACLs, the rate limit, load shedding. */
export const GUARDED_ERRORS = [401, 403, 429, 503] as const;

/** The error responses of a route, each with its meaning, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, object> {
  return Object.fromEntries(statuses.map((status) => [status, { ...errorResponseSchema, description: ERROR_DESCRIPTIONS[status] }]));
}

/** A page of GET /retrieval/article_listing. */
export const articleListingSchema = {
  type: 'object',
  properties: {
    items: { type: 'array', items: articleMetadataSchema },
    total: { type: 'integer' },
    page: { type: 'integer' },
    size: { type: 'integer' },
    pages: { type: 'integer' },
  },
  required: ['items', 'total', 'page', 'size', 'pages'],
} as const;
