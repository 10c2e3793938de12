/**
 * What /openapi.json says of a route beyond its validation schemas (the `transform` of @fastify/swagger):
 * a request body fastify must not validate, a body that may be left out, the refusals every literature
 * route may answer before it is routed, and the HEAD fastify answers for every GET, without a body.
 */
import type { FastifySchema } from 'fastify';
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { errorResponseSchema, REFUSALS_BEFORE_ROUTING } from './errors.js';

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
    /** The route takes no body as well as one: @fastify/swagger writes every `body` as required. */
    optionalBody?: true;
  }
}

/** The media types a /v1 JSON body may be sent as. */
export const PLATFORM_BODY_TYPES = ['application/json', 'application/ld+json'] as const;

/** Marks an operation whose body is optional, from the route transform to the document's (openapiDocument). */
const OPTIONAL_BODY = 'x-optional-body';

/** The statuses a literature route may answer before it is routed, with the literature error body. */
const refusedBeforeRouting = Object.fromEntries(
  Object.entries(REFUSALS_BEFORE_ROUTING).map(([status, description]) => [status, { ...errorResponseSchema, description }]),
);

/**
 * Whether a route is one of /v1's, which answers its refusals in its own vocabulary and declares them
 * with every 4xx and 5xx; every other path is answered in the literature one (app.ts).
 */
function isPlatformRoute(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/');
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
  const { documentedBody, optionalBody, ...validated } = schema;
  const documented: FastifySchema = documentedBody ? { ...validated, body: documentedBody.schema, consumes: [documentedBody.mediaType] } : { ...validated };
  // /v1 parses JSON-LD bodies as JSON (platform/index.ts), as Nexus takes both: the document says so.
  if (!documentedBody && documented.body !== undefined && isPlatformRoute(url)) documented.consumes = [...PLATFORM_BODY_TYPES];
  if (optionalBody) Object.assign(documented, { [OPTIONAL_BODY]: true });
  if (documented.response !== undefined && !isPlatformRoute(url)) documented.response = { ...refusedBeforeRouting, ...documented.response };
  if (route.method === 'HEAD' && documented.response !== undefined) documented.response = headResponses(documented.response as object);
  return { schema: documented, url };
};

/**
 * The whole document (the `transformObject` of @fastify/swagger): an operation marked in `openapiTransform` as
 * taking no body as well as one says its body is not required, which @fastify/swagger writes for every `body`.
 */
export const openapiDocument: SwaggerTransformObject = (document) => {
  // The app asks for OpenAPI 3 (app.ts); a Swagger 2 document would have its body among the parameters.
  if (!('openapiObject' in document)) return document.swaggerObject;
  const { openapiObject } = document;
  for (const operations of Object.values(openapiObject.paths ?? {})) {
    for (const operation of Object.values(operations ?? {}) as Record<string, unknown>[]) {
      declareCommonHeaders(operation['responses'] as Record<string, { headers?: Record<string, object> }> | undefined);
      if (operation[OPTIONAL_BODY] !== true) continue;
      delete operation[OPTIONAL_BODY];
      (operation['requestBody'] as { required?: boolean }).required = false;
    }
  }
  return openapiObject;
};

const REQUEST_ID_HEADER = {
  description: "The request's id: the client's own `x-request-id` when it sent a usable one, else one the server made; every log line of the request carries it.",
  schema: { type: 'string' },
};
const RETRY_AFTER_HEADER = { description: 'Seconds after which the request may succeed.', schema: { type: 'integer', minimum: 1 } };

/**
 * The headers every answer carries (`x-request-id`) and those of the refusals that say when to retry
 * (`Retry-After` on 429 and 503, where the server sends it: rate limits, full queues, load shedding, a store away),
 * which @fastify/swagger cannot know from the response schemas.
 */
function declareCommonHeaders(responses: Record<string, { headers?: Record<string, object> }> | undefined): void {
  for (const [status, response] of Object.entries(responses ?? {})) {
    response.headers = { ...response.headers, 'x-request-id': REQUEST_ID_HEADER };
    if (status === '429' || status === '503' || status === '5XX') response.headers['retry-after'] = RETRY_AFTER_HEADER;
  }
}
