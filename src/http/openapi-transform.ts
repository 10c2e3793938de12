/**
 * What /openapi.json says of a route beyond its validation schemas (the `transform` of @fastify/swagger):
 * a request body fastify must not validate, and the HEAD fastify answers for every GET, without a body.
 */
import type { FastifySchema } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';

/** A request body in one media type, as the document shows it. */
export interface DocumentedBody {
  mediaType: string;
  schema: object;
}

declare module 'fastify' {
  interface FastifySchema {
    /**
     * A body the document shows and fastify never sees: a `body` schema would make fastify validate the parsed
     * body, and a multipart upload is read part by part by its handler, not parsed into one.
     */
    documentedBody?: DocumentedBody;
  }
}

/** A response schema's own description, if it has one (a `$ref` to a shared schema has none). */
function descriptionOf(response: unknown): string | undefined {
  const description = (response as { description?: unknown } | null)?.description;
  return typeof description === 'string' ? description : undefined;
}

/**
 * A HEAD's answers: its GET's statuses with no body (`type: 'null'` documents none), but no 206, as Range is
 * defined for GET only (RFC 9110 §14.2).
 */
function headResponses(response: object): Record<string, object> {
  return Object.fromEntries(
    Object.entries(response)
      .filter(([status]) => status !== '206')
      .map(([status, schema]) => {
        const own = descriptionOf(schema);
        return [status, { type: 'null', description: `The headers GET answers with, without its body${own === undefined ? '' : `. GET: ${own}`}` }];
      }),
  );
}

/** The route's schema as the document shows it; the route itself keeps its own (fastify validates with that). */
export const openapiTransform: SwaggerTransform = ({ schema, url, route }) => {
  if (schema === undefined) return { schema, url };
  const { documentedBody, ...validated } = schema;
  const documented: FastifySchema = documentedBody ? { ...validated, body: documentedBody.schema, consumes: [documentedBody.mediaType] } : validated;
  if (route.method === 'HEAD' && documented.response !== undefined) documented.response = headResponses(documented.response as object);
  return { schema: documented, url };
};
