/**
 * Integer query parameters (`rev`, `from`, `size`) are written as Nexus reads them: as an Int parsed
 * from the text (Java's Integer.parseInt), which takes decimal digits and nothing else. Ajv's coercion
 * takes any text naming an integral number (`rev=1.0`, `rev=1e0`, `size=2e1`) for that integer; Nexus
 * refuses those, and so does /v1. Leading zeros are digits (`rev=01` is 1, as in Nexus); a minus sign
 * passes to the schema's bounds, which answer why the number is refused; a plus sign, which Nexus
 * would also take, is refused as in every query number of this server (src/http/validation.ts).
 */
import type { FastifyRequest } from 'fastify';
import { PlatformError } from '../../platform/errors.js';
import { shownName } from '../../platform/unicode.js';

const INTEGER_TEXT = /^-?[0-9]+$/;

interface QuerySchema {
  properties?: Record<string, { type?: unknown }>;
}

/** A preValidation hook: refuses an integer parameter of the route's query schema whose text is not decimal digits. */
export async function refuseNonIntegerText(request: FastifyRequest): Promise<void> {
  const properties = (request.routeOptions.schema?.querystring as QuerySchema | undefined)?.properties;
  if (properties === undefined) return;
  const query = request.query as Record<string, unknown>;
  for (const [name, schema] of Object.entries(properties)) {
    const text = query[name];
    if (schema.type === 'integer' && typeof text === 'string' && !INTEGER_TEXT.test(text)) {
      // `rev=+1` arrives as ' 1': a '+' of a query string is a space, which the message explains.
      const plusAsSpace = /\s/.test(text) ? " (a '+' in a query string stands for a space; a plus sign is written %2B, and is refused too)" : '';
      throw new PlatformError(
        400,
        'MalformedQueryParam',
        `querystring/${name} must be an integer written in decimal digits, not '${shownName(text)}'${plusAsSpace}`,
      );
    }
  }
}
