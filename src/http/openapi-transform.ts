/**
 * What /openapi.json says of a route beyond its validation schemas (the `transform` of @fastify/swagger):
 * a request body fastify must not validate, a body that may be left out, the refusals every literature
 * route may answer before it is routed, the HEAD fastify answers for every GET, without a body, the request
 * headers a route reads without validating them, and the headers the answers carry, which no response schema can
 * tell @fastify/swagger.
 */
import type { FastifySchema } from 'fastify';
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { defaultOf } from '../config.js';
import { errorResponseSchema, REFUSALS_BEFORE_ROUTING } from './errors.js';
import { isHealthProbe } from './literature/health-and-settings.js';
import { addressesPlatform } from './platform-path.js';

/** A request body in one media type, as the document shows it. */
export interface DocumentedBody {
  mediaType: string;
  schema: object;
}

/** A response header, as the document shows it (an OpenAPI Header Object). */
export interface DocumentedHeader {
  description: string;
  schema: object;
}

/** The headers a route's answers carry besides those every answer does, by status ('200', '206'...). */
export type ResponseHeaders = Record<string, Record<string, DocumentedHeader>>;

/** An operation's responses in the document, as the headers are added to them. */
type Responses = Record<string, { headers?: Record<string, object> }>;

declare module 'fastify' {
  interface FastifySchema {
    /**
     * A body the document shows and fastify never sees: a `body` schema would make fastify validate the parsed
     * body, and a multipart upload is read part by part by its handler, not parsed into one.
     */
    documentedBody?: DocumentedBody;
    /** The route takes no body as well as one: @fastify/swagger writes every `body` as required. */
    optionalBody?: true;
    /**
     * The headers the route sets on its answers, by status, for the document: a `headers` keyword in a
     * response schema would reach fastify's serialiser. A status the operation does not declare (a HEAD's 206) gets none.
     */
    responseHeaders?: ResponseHeaders;
    /** Request headers the route reads, for the document only: a `headers` schema would make fastify validate them. */
    requestHeaders?: Record<string, DocumentedHeader>;
  }
}

/** The media types a /v1 JSON body may be sent as. */
export const PLATFORM_BODY_TYPES = ['application/json', 'application/ld+json'] as const;

/** Marks an operation whose body is optional, from the route transform to the document's (openapiDocument). */
const OPTIONAL_BODY = 'x-optional-body';
/** Carries a route's `responseHeaders` from the route transform to the document's, which adds them to its responses. */
const RESPONSE_HEADERS = 'x-response-headers';

/** The statuses a literature route may answer before it is routed, with the literature error body. */
const refusedBeforeRouting = Object.fromEntries(
  Object.entries(REFUSALS_BEFORE_ROUTING).map(([status, description]) => [status, { ...errorResponseSchema, description }]),
);

/** A response schema's own description, if it has one (a `$ref` to a shared schema has none). */
function descriptionOf(response: unknown): string | undefined {
  const description = (response as { description?: unknown } | null)?.description;
  return typeof description === 'string' ? description : undefined;
}

/** The answers to a Range, which is defined for GET only (RFC 9110 §14.2): a HEAD gets the headers of the whole content. */
const RANGE_STATUSES = new Set(['206', '416']);

/** A HEAD's answers: its GET's statuses with no body (`type: 'null'` documents none), but not those of a Range. */
function headResponses(response: object): Record<string, object> {
  return Object.fromEntries(
    Object.entries(response)
      .filter(([status]) => !RANGE_STATUSES.has(status))
      .map(([status, schema]) => {
        const own = descriptionOf(schema);
        return [status, { type: 'null', description: `The headers GET answers with, without its body${own === undefined ? '' : `. GET: ${own}`}` }];
      }),
  );
}

/** Whether a route's method changes what it addresses (a /v1 write, which evaluates the preconditions). */
function isWrite(method: string | string[]): boolean {
  return [method].flat().some((name) => !['GET', 'HEAD', 'OPTIONS'].includes(name));
}

/** The request headers of a Range, which a HEAD does not take. */
const RANGE_HEADERS = ['Range', 'If-Range'];

/**
 * The preconditions every /v1 write evaluates before it is performed (platform/preconditions.ts), a false one
 * answered 412 PreconditionFailed with nothing changed; only a file's content has an entity tag.
 */
const PRECONDITION_HEADERS: Record<string, DocumentedHeader> = {
  'If-Match': {
    description: "The write happens only if the target's entity tag is listed (compared strongly), or for *, if the target exists. Only a file's content has one (its ETag); else 412.",
    schema: { type: 'string' },
  },
  'If-None-Match': {
    description: "The write happens only if the target's entity tag is not listed (compared weakly), or for *, if the target does not exist: a PUT that only creates; else 412.",
    schema: { type: 'string' },
  },
  'If-Unmodified-Since': {
    description: "An HTTP-date: the write happens only if the target's _updatedAt is not later (to the second); else 412. Ignored with If-Match, or when not an HTTP-date.",
    schema: { type: 'string' },
  },
};

/** Request headers as the `headers` schema @fastify/swagger lists as header parameters, each with its description. */
function headerParameters(headers: Record<string, DocumentedHeader>): object {
  return { type: 'object', properties: Object.fromEntries(Object.entries(headers).map(([name, { description, schema }]) => [name, { ...schema, description }])) };
}

/** The route's schema as the document shows it; the route itself keeps its own (fastify validates with that). */
export const openapiTransform: SwaggerTransform = ({ schema, url, route }) => {
  if (schema === undefined) return { schema, url };
  const { documentedBody, optionalBody, responseHeaders, requestHeaders, ...validated } = schema;
  const documented: FastifySchema = documentedBody ? { ...validated, body: documentedBody.schema, consumes: [documentedBody.mediaType] } : { ...validated };
  // /v1 parses JSON-LD bodies as JSON (platform/index.ts), as Nexus takes both: the document says so.
  if (!documentedBody && documented.body !== undefined && addressesPlatform(url)) documented.consumes = [...PLATFORM_BODY_TYPES];
  if (optionalBody) Object.assign(documented, { [OPTIONAL_BODY]: true });
  if (responseHeaders) Object.assign(documented, { [RESPONSE_HEADERS]: responseHeaders });
  const headers = { ...(addressesPlatform(url) && isWrite(route.method) && PRECONDITION_HEADERS), ...requestHeaders };
  // Range and If-Range are defined for GET only: a HEAD is answered for the whole content.
  if (route.method === 'HEAD') for (const name of RANGE_HEADERS) delete headers[name];
  if (Object.keys(headers).length > 0) documented.headers = headerParameters(headers);
  if (documented.response !== undefined && !addressesPlatform(url)) documented.response = { ...refusedBeforeRouting, ...documented.response };
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
  for (const [path, operations] of Object.entries(openapiObject.paths ?? {})) {
    for (const operation of Object.values(operations ?? {}) as Record<string, unknown>[]) {
      const responses = operation['responses'] as Responses | undefined;
      declareCommonHeaders(responses, !isHealthProbe(path));
      declareRouteHeaders(responses, operation[RESPONSE_HEADERS] as ResponseHeaders | undefined);
      delete operation[RESPONSE_HEADERS];
      if (operation[OPTIONAL_BODY] !== true) continue;
      delete operation[OPTIONAL_BODY];
      (operation['requestBody'] as { required?: boolean }).required = false;
    }
  }
  const components = (openapiObject.components ?? {}) as { responses?: Record<string, object>; headers?: Record<string, object> };
  Object.assign(openapiObject, {
    components: { ...components, responses: { ...components.responses, MethodNotAllowed: METHOD_NOT_ALLOWED }, headers: { ...components.headers, ...COMMON_HEADERS } },
  });
  return openapiObject;
};

const REQUEST_ID_HEADER = {
  description: "The request's id: the client's own `x-request-id` when it sent a usable one, else one the server made; every log line of the request carries it.",
  schema: { type: 'string' },
};
const RETRY_AFTER_HEADER = { description: 'Seconds after which the request may succeed.', schema: { type: 'integer', minimum: 1 } };

/** When the rate limit's headers are sent (app.ts registers @fastify/rate-limit for every route but the health probes). */
const RATE_LIMITED =
  `Sent while --rate-limit is above 0 (${defaultOf('rateLimit')} by default), on every answer once the request has been counted: not on the refusals made before, ` +
  'for load shedding, draining, a framing or a URL the server does not take';
/** The headers of @fastify/rate-limit, on the answers of every route it counts. */
const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': { description: `Requests the caller may make per minute (--rate-limit). ${RATE_LIMITED}.`, schema: { type: 'integer', minimum: 1 } },
  'x-ratelimit-remaining': {
    description: `Requests the caller has left in the current minute; 0 on the 429 of a used-up limit. ${RATE_LIMITED}.`,
    schema: { type: 'integer', minimum: 0 },
  },
  'x-ratelimit-reset': { description: `Seconds until the current minute's count starts again. ${RATE_LIMITED}.`, schema: { type: 'integer', minimum: 0 } },
};

/**
 * The headers declared on most responses, written once among the document's components and referred to from each
 * response: written out on each of some 400 responses, they would make half of the document's 840 KB.
 */
const COMMON_HEADERS = { 'x-request-id': REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS, 'retry-after': RETRY_AFTER_HEADER };
const reference = (name: keyof typeof COMMON_HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_REFERENCES = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, reference(name as keyof typeof RATE_LIMIT_HEADERS)]));

/**
 * The headers every answer carries (`x-request-id`), those of the rate limit on every route it counts (`rateLimited`:
 * all but the health probes), and those of the refusals that say when to retry (`Retry-After` on 429 and 503, where the
 * server sends it: rate limits, full queues, load shedding, a store away), which @fastify/swagger cannot know from the
 * response schemas.
 */
function declareCommonHeaders(responses: Responses | undefined, rateLimited: boolean): void {
  for (const [status, response] of Object.entries(responses ?? {})) {
    response.headers = { ...response.headers, 'x-request-id': reference('x-request-id'), ...(rateLimited && RATE_LIMIT_REFERENCES) };
    if (status === '429' || status === '503' || status === '5XX') response.headers['retry-after'] = reference('retry-after');
  }
}

/** A route's own headers (`responseHeaders`), on the responses of the statuses its operation declares. */
function declareRouteHeaders(responses: Responses | undefined, headers: ResponseHeaders | undefined): void {
  for (const [status, declared] of Object.entries(headers ?? {})) {
    const response = responses?.[status];
    if (response !== undefined) response.headers = { ...response.headers, ...declared };
  }
}

/**
 * The answer to a method a path does not take (method-not-allowed.ts), in the vocabulary of the path's API. No operation
 * answers it, being the answer to the operations a path lacks: it is listed once, among the document's components.
 */
const METHOD_NOT_ALLOWED = {
  description: "Method Not Allowed: the path exists, but not for the request's method (literature code 14, /v1 MethodNotSupported).",
  headers: {
    Allow: { description: 'The methods the path takes, comma-separated.', schema: { type: 'string' } },
    'x-request-id': reference('x-request-id'),
  },
};
