/**
 * The error vocabulary of the literature API: every error body is
 * `{"detail": {"code": N, "detail": "..."}}` (plus `parameter` on 422).
 * Codes 1-6 are the public reference's; the others are ours.
 */
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { damagedFileOf } from '../search/searcher.js';
import { shownName } from '../text/unicode.js';
import { VISIBLE_CHARACTER_PATTERN } from './blank-text.js';
import { closeIfBodyUnread } from './unread-body.js';

export const ErrorCode = {
  NO_DOCUMENTS: 1,
  NO_ANSWER: 2,
  INACTIVE: 3,
  INPUT_TOO_LARGE: 4,
  RATE_LIMITED: 5,
  INCOMPLETE_ANSWER: 6,
  INVALID_INPUT: 8,
  UNAUTHENTICATED: 9,
  FORBIDDEN: 10,
  NOT_FOUND: 11,
  INTERNAL: 12,
  OVERLOADED: 13,
  METHOD_NOT_ALLOWED: 14,
  DAMAGED_INDEX: 15,
} as const;

/** A request the server cannot serve now (it is full, or shutting down): 503, in the vocabulary of the API addressed. */
export class ServiceUnavailableError extends Error {
  readonly statusCode = 503;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function literatureErrorBody(code: number, detail: string, extra: Record<string, unknown> = {}) {
  return { detail: { code, detail, ...extra } };
}

export const errorResponseSchema = {
  type: 'object',
  properties: {
    detail: {
      type: 'object',
      properties: { code: { type: 'integer' }, detail: { type: 'string' }, parameter: { type: 'string' } },
      required: ['code', 'detail'],
      additionalProperties: true,
    },
  },
  required: ['detail'],
} as const;

/**
 * What any literature route may answer before it is routed, whatever it takes, with its meaning: the requests
 * the HTTP parser refuses (app.ts) and the framings transport-refusals.ts refuses. openapi-transform.ts declares
 * them on every literature route (with the error body above), so that no route has to.
 */
export const REFUSALS_BEFORE_ROUTING: Record<number, string> = {
  400: 'Before any route: malformed HTTP, or no Host header or two (code 8), then the connection is closed.',
  408: 'The request (headers or body) was not received within --request-timeout (code 8); answered before any route, then the connection is closed.',
  417: 'An `Expect` other than 100-continue (code 8); the connection is closed.',
  431: "The request line and headers over Node's limit, 16 KiB by default; a long query string counts: input too large (code 4). Answered before any route, then the connection is closed.",
  501: 'A `Transfer-Encoding` other than chunked alone, which nothing here decodes (code 8); the connection is closed.',
};

/** Names the offending parameter of an Ajv validation error (e.g. "retriever_k"). */
function parameterOf(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.validationContext ?? 'request';
  const missing = (first.params as { missingProperty?: string; additionalProperty?: string }) ?? {};
  const fromPath = first.instancePath.split('/').filter(Boolean)[0];
  const named = missing.missingProperty ?? missing.additionalProperty ?? fromPath;
  return named === undefined ? (error.validationContext ?? 'request') : shownName(named);
}

/**
 * The one place the literature API words a validation error: Ajv's own words ("must have required
 * property 'query'", "must NOT have fewer than 1 characters", "must be integer") say less, or say it
 * in a language of their own.
 */
function validationMessage(error: FastifyError, parameter: string, request: FastifyRequest): string {
  const first = error.validation?.[0];
  const params = (first?.params ?? {}) as { additionalProperty?: string; suggestion?: string; pattern?: string; type?: string };
  const context = error.validationContext ?? 'request';
  // A query string writes a nameless parameter `=value`, a JSON body a nameless key `"": value`.
  if (params.additionalProperty === '') return context === 'body' ? 'a key without a name ("") in body' : `a parameter without a name ("=value") in ${context}`;
  if (params.additionalProperty) {
    // validation.ts suggests `query` for `query[]`: several values are given by repeating the parameter.
    const suggestion = params.suggestion === undefined ? '' : ` (did you mean ${params.suggestion}?)`;
    return `unknown parameter "${shownName(params.additionalProperty)}" in ${context}${suggestion}`;
  }
  if (repeatedSingleValue(error, request.url) !== null) return `${parameter} may be given only once`;
  if (first?.keyword === 'required') return `${parameter} is required`;
  if (first?.keyword === 'type' && first.instancePath === '' && error.validationContext === 'body') return 'the body must be a JSON object';
  // Every refusal of a whole number in one sentence: Ajv's type error ("1.5", "") and validation.ts's non-decimal text ("0x10", "+2").
  if (first?.keyword === 'type' && params.type === 'integer') return `${parameter} must be a whole number such as 2`;
  if (first?.keyword === 'pattern' && params.pattern === VISIBLE_CHARACTER_PATTERN) return `${parameter} is blank`;
  if (first?.keyword === 'minLength' && first.params['limit'] === 1) return `${parameter} is empty`;
  return `${parameter} ${first?.message ?? 'is invalid'}`;
}

/**
 * The single-valued query parameter a validation error is about when it came more than once, else null:
 * it arrives as an array, which Ajv reports as a wrong type, or against an enum as not one of its values
 * (which would tell `format=expanded&format=compacted` "must be one of the allowed values").
 */
export function repeatedSingleValue(error: FastifyError, url: string): string | null {
  const first = error.validation?.[0];
  if (error.validationContext !== 'querystring' || (first?.keyword !== 'type' && first?.keyword !== 'enum')) return null;
  // The parameter itself, not an item of a parameter that takes several values.
  const segments = first.instancePath.split('/').filter(Boolean);
  return segments.length === 1 && repeatedInQuery(url, segments[0]!) ? segments[0]! : null;
}

/** Whether a single-valued query parameter came more than once (Ajv then reports an array of the wrong type). */
function repeatedInQuery(url: string, parameter: string): boolean {
  const query = url.indexOf('?');
  return query >= 0 && new URLSearchParams(url.slice(query + 1)).getAll(parameter).length > 1;
}

/** Files of the served index already reported damaged: each is logged once, not once per request that meets it. */
const reportedDamagedFiles = new Set<string>();

/**
 * A file of the served index found truncated or damaged while answering, as
 * the 503 it is answered with: the server keeps serving what does not read
 * it, and only a new index mends it. The file is logged once, at error level.
 */
export function damagedIndexAnswer(error: unknown, log: FastifyBaseLogger): ApiError | null {
  const file = damagedFileOf(error);
  if (file === null) return null;
  if (!reportedDamagedFiles.has(file)) {
    reportedDamagedFiles.add(file);
    log.error({ err: error, file }, `index file ${file} is damaged or truncated: re-ingest the corpus into a new index directory and serve that`);
  }
  return new ApiError(
    503,
    ErrorCode.DAMAGED_INDEX,
    'the index is damaged (a file was truncated or changed after the server loaded it): ' +
      'the operator must re-ingest the corpus into a new index directory; the server log names the file',
  );
}

/** Maps every error to the vocabulary; anything unexpected is logged and answered as 500 code 12. */
export function literatureErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // A refusal before the body was read (a token, a permission): kept alive, the connection would first read the rest of it.
  closeIfBodyUnread(request, reply);
  const damaged = damagedIndexAnswer(error, request.log);
  if (damaged) return reply.code(damaged.status).send(literatureErrorBody(damaged.code, damaged.message));
  if (error instanceof ApiError) {
    return reply.code(error.status).headers(error.headers).send(literatureErrorBody(error.code, error.message, error.extra));
  }
  if (error.validation) {
    const parameter = parameterOf(error);
    return reply.code(422).send(literatureErrorBody(ErrorCode.INVALID_INPUT, validationMessage(error, parameter, request), { parameter }));
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return reply.code(413).send(literatureErrorBody(ErrorCode.INPUT_TOO_LARGE, 'request body too large'));
  if (status === 429) return reply.code(429).send(literatureErrorBody(ErrorCode.RATE_LIMITED, error.message));
  if (status === 503) return reply.code(503).send(literatureErrorBody(ErrorCode.OVERLOADED, error.message));
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    // Fastify says only "Unsupported Media Type": the sender needs to know what is taken.
    const sent = request.headers['content-type'] ?? 'none';
    return reply.code(415).send(literatureErrorBody(ErrorCode.INVALID_INPUT, `the body must be application/json, got Content-Type ${shownName(sent)}`));
  }
  if (status >= 400 && status < 500) {
    // Fastify's own client errors: malformed JSON, unsupported media type, bad encoding...
    return reply.code(status).send(literatureErrorBody(ErrorCode.INVALID_INPUT, error.message));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(literatureErrorBody(ErrorCode.INTERNAL, 'internal error; see the server log for the request id'));
}
