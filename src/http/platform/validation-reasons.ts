/**
 * The reason of a /v1 validation refusal (an Ajv error of the route's schema). Ajv's own words name a query
 * parameter or path label but not the value sent, and say it in the validator's language ("must be >= 1",
 * "must be boolean", "must match pattern "^[A-Za-z0-9_-]{1,64}$""). A query parameter or path label is short
 * and the caller wrote it, so its refusal says what is taken in words and shows what came. So does a body's
 * refusal of a value outside an enum (its start, for a long one: the values taken are short); the body's other
 * refusals keep Ajv's words with what they leave unsaid added (the unknown field): a body's values can be large,
 * and its checks beyond the schema speak for themselves.
 */
import type { FastifyError } from 'fastify';
import { LABEL_PATTERN } from '../../platform/refs.js';
import { shownName } from '../../text/unicode.js';
import { repeatedSingleValue } from '../errors.js';

/** What was sent, by validation context: the parsed query string, path labels and body a refusal can show. */
export interface SentParameters {
  querystring?: unknown;
  params?: unknown;
  body?: unknown;
}

/**
 * Ajv's message, with what it leaves unsaid: the unknown parameter or field it does not name ("must NOT
 * have additional properties"), the values an enum allows, a parameter given twice (which it reports as
 * "must be integer"), and for a query parameter or path label, the value refused.
 */
export function validationReason(
  error: FastifyError,
  url: string,
  queryParameters: readonly string[] | undefined,
  sent: SentParameters = {},
): string {
  const first = error.validation?.[0];
  const unknown = first?.params['additionalProperty'];
  if (typeof unknown === 'string' && error.validationContext === 'querystring') {
    return `querystring has an unknown parameter '${shownName(unknown)}'${takenParameters(queryParameters)}`;
  }
  if (typeof unknown === 'string') return `${error.message}: '${shownName(unknown)}'`;
  const missing = first?.params['missingProperty'];
  if (typeof missing === 'string' && error.validationContext === 'querystring') return `querystring/${missing} is required`;
  const repeated = repeatedSingleValue(error, url);
  if (repeated !== null) return `querystring/${repeated} may be given only once`;
  const context = error.validationContext;
  if (first !== undefined && error.validation?.length === 1 && (context === 'querystring' || context === 'params' || (context === 'body' && first.keyword === 'enum'))) {
    const requirement = requirementOf(first.keyword, first.params);
    // A query parameter as the client wrote it: the parsed one has been coerced (`rev=99999999999999999999` to 1e20).
    const value = (context === 'querystring' ? queryText(url, first.instancePath) : undefined) ?? valueAt(sent[context], first.instancePath);
    // A body's value that is no text, number or boolean (an object, null) goes unshown, not the requirement.
    if (requirement !== null && (value !== undefined || context === 'body')) {
      // "must not be empty" says what came already.
      const refused = value === undefined || (String(value) === '' && first.keyword === 'minLength') ? '' : `, not ${shownValue(value, context)}`;
      return `${context}${first.instancePath} ${requirement}${refused}`;
    }
  }
  const allowed = allowedValuesOf(error);
  return allowed === null ? error.message : `${error.message}: ${allowed}`;
}

/** What a keyword of the /v1 query and path schemas asks, in words; null for one they do not use. */
function requirementOf(keyword: string, params: Record<string, unknown>): string | null {
  const limit = params['limit'];
  switch (keyword) {
    case 'minimum':
      return `must be at least ${String(limit)}`;
    case 'maximum':
      return `must be at most ${String(limit)}`;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${String(limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(limit)} characters long`;
    case 'type':
      // Booleans' words and integers' text are read before validation (query-text.ts); this is what remains.
      return params['type'] === 'integer' ? 'must be an integer written in decimal digits' : null;
    case 'pattern':
      return params['pattern'] === LABEL_PATTERN ? "must be 1 to 64 letters (A-Z, a-z), digits, '_' or '-'" : null;
    case 'enum': {
      const allowed = params['allowedValues'];
      return Array.isArray(allowed) ? `must be one of ${quoted(allowed)}` : null;
    }
    default:
      return null;
  }
}

/** A refused value as sent, quoted: query strings and paths are text; a body's number or boolean as JSON writes it (`5` is not `'5'`). */
function shownValue(value: string | number | boolean, context: string): string {
  return context === 'body' && typeof value !== 'string' ? String(value) : `'${shownName(String(value))}'`;
}

/** The text of the query parameter at an instance path of one segment (`/rev`), as sent; undefined for another path. */
function queryText(url: string, instancePath: string): string | undefined {
  const name = /^\/([^/]+)$/.exec(instancePath)?.[1];
  const query = url.indexOf('?');
  if (name === undefined || query < 0) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get(name) ?? undefined;
}

/** The value at an Ajv instance path (`/size`, `/type/1`) of what was sent; undefined when there is none to show. */
function valueAt(root: unknown, instancePath: string): string | number | boolean | undefined {
  let value = root;
  for (const segment of instancePath.split('/').slice(1)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/**
 * What a query string refused for an unknown parameter could have held, so that Nexus's `after` (its deep paging)
 * is told that listings page with from and size, not only that it is unknown.
 */
function takenParameters(queryParameters: readonly string[] | undefined): string {
  if (queryParameters === undefined) return '';
  return queryParameters.length === 0 ? ' (this operation takes no query parameter)' : ` (this operation takes ${queryParameters.join(', ')})`;
}

/** The values an enum allows, quoted, when that is what a validation error is about; else null. */
function allowedValuesOf(error: FastifyError): string | null {
  const first = error.validation?.[0];
  const allowed = first?.keyword === 'enum' ? first.params['allowedValues'] : undefined;
  return Array.isArray(allowed) ? quoted(allowed) : null;
}

/** `'compacted', 'expanded'` */
function quoted(values: readonly unknown[]): string {
  return values.map((value) => `'${String(value)}'`).join(', ');
}
