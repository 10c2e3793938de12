/**
 * Query parameters are read from their text as Nexus reads them, before the schemas coerce them.
 *
 * Integers (`rev`, `from`, `size`) as an Int parsed from the text (Java's Integer.parseInt), which takes
 * decimal digits and nothing else. Ajv's coercion takes any text naming an integral number (`rev=1.0`,
 * `rev=1e0`, `size=2e1`) for that integer; Nexus refuses those, and so does /v1. Leading zeros are digits
 * (`rev=01` is 1, as in Nexus); a minus sign passes to the schema's bounds, which answer why the number is
 * refused; a plus sign, which Nexus would also take, is refused as in every query number of this server
 * (src/http/validation.ts).
 *
 * Booleans (`deprecated`, `ignoreNotFound`, `annotate`, `prune`, `self`, `ancestors`) as Akka HTTP's
 * unmarshaller reads them: true, yes, on or 1, and false, no, off or 0, in any case. Ajv's coercion takes
 * only `true` and `false`, so a client of the reference sending `deprecated=yes` would be refused here.
 */
import type { FastifyRequest } from 'fastify';
import { PlatformError } from '../../platform/errors.js';
import { booleanOfWord } from '../../text/boolean-words.js';
import { shownName } from '../../text/unicode.js';

const INTEGER_TEXT = /^-?[0-9]+$/;

interface QuerySchema {
  properties?: Record<string, { type?: unknown }>;
}

const malformed = (name: string, requirement: string, text: string, why = '') =>
  new PlatformError(400, 'MalformedQueryParam', `querystring/${name} ${requirement}, not '${shownName(text)}'${why}`);

/**
 * A preValidation hook: refuses an integer parameter of the route's query schema whose text is not decimal
 * digits, and a boolean one that is none of the words (text/boolean-words.ts); writes the boolean words as the schemas read them.
 */
export async function readQueryText(request: FastifyRequest): Promise<void> {
  const properties = (request.routeOptions.schema?.querystring as QuerySchema | undefined)?.properties;
  if (properties === undefined) return;
  const query = request.query as Record<string, unknown>;
  for (const [name, schema] of Object.entries(properties)) {
    const text = query[name];
    if (typeof text !== 'string') continue;
    if (schema.type === 'integer' && !INTEGER_TEXT.test(text)) {
      // `rev=+1` arrives as ' 1': a '+' of a query string is a space, which the message explains.
      const plusAsSpace = /\s/.test(text) ? " (a '+' in a query string stands for a space; a plus sign is written %2B, and is refused too)" : '';
      throw malformed(name, 'must be an integer written in decimal digits', text, plusAsSpace);
    }
    if (schema.type === 'boolean') {
      const value = booleanOfWord(text);
      if (value === undefined) throw malformed(name, 'must be true or false (or yes/no, on/off, 1/0)', text);
      query[name] = String(value);
    }
  }
}
