/**
 * The Nexus error vocabulary of the /v1 API: every failure is answered as
 * `{"@context": error.json, "@type", "reason"[, "details"]}`. Input problems
 * caught by fastify itself (schemas, JSON syntax, sizes, media types,
 * multipart) get 4xx answers in the same shape; only real faults are 500
 * (a client that closes its connection mid-request is not one).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CONTEXT } from '../../platform/contexts.js';
import { PlatformError, RetryLaterError, StoreUnavailableError } from '../../platform/errors.js';
import { damagedIndexAnswer } from '../errors.js';
import { shownName } from '../../text/unicode.js';
import { closeIfBodyUnread } from '../unread-body.js';
import { type SentParameters, validationReason } from './validation-reasons.js';
import { formRefusalReason } from './upload-form.js';

interface ErrorBody {
  '@context': string;
  '@type': string;
  reason: string;
  details?: string;
}

export const errorSchema = {
  type: 'object',
  required: ['@context', '@type', 'reason'],
  properties: {
    '@context': { type: 'string' },
    '@type': { type: 'string' },
    reason: { type: 'string' },
    details: { type: 'string' },
  },
} as const;

export function platformErrorBody(type: string, reason: string, details?: string): ErrorBody {
  return { '@context': ERROR_CONTEXT, '@type': type, reason, ...(details !== undefined && { details }) };
}

const VALIDATION_TYPES: Record<string, string> = {
  body: 'DecodingFailed',
  querystring: 'MalformedQueryParam',
  params: 'InvalidPathSegment',
  headers: 'MalformedHeader',
};

/** Fastify and @fastify/multipart error codes that are the client's fault. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'UnsupportedMediaType'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'MalformedRequest'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'PayloadTooLarge'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'DecodingFailed'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'DecodingFailed'],
  FST_INVALID_MULTIPART_CONTENT_TYPE: [415, 'UnsupportedMediaType'],
  FST_REQ_FILE_TOO_LARGE: [413, 'FileTooLarge'],
  FST_PARTS_LIMIT: [413, 'PayloadTooLarge'],
  FST_FILES_LIMIT: [413, 'PayloadTooLarge'],
  FST_FIELDS_LIMIT: [413, 'PayloadTooLarge'],
  FST_PROTO_VIOLATION: [400, 'InvalidFile'],
};

/**
 * What a refusal can say beyond fastify's words: of a body, the route's body limit and the media type sent; of a
 * query string, the parameters the route takes.
 */
interface RefusalContext {
  bodyLimit?: number;
  contentType?: string;
  /** The media type of a body the route reads itself (an upload's multipart/form-data); else JSON is taken. */
  ownMediaType?: string;
  /** The query parameters the route takes, named when an unknown one is refused. */
  queryParameters?: readonly string[];
  /** The parsed query string, path labels and body, whose refused value a validation refusal shows. */
  sent?: SentParameters;
}

/**
 * Fastify's words for a body refused by size or media type ("Request body is too large", "Unsupported Media
 * Type") named neither the limit nor what is taken; the literature routes' refusals name both.
 */
function bodyRefusalReason(code: string | undefined, { bodyLimit, contentType, ownMediaType }: RefusalContext): string | null {
  const sent = contentType === undefined ? 'no Content-Type' : `Content-Type ${shownName(contentType)}`;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' && bodyLimit !== undefined) return `The body is larger than the ${shownBytes(bodyLimit)} this route takes.`;
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    const taken = ownMediaType === undefined ? 'application/json or application/ld+json' : `${ownMediaType} (a part named 'file' holding the file)`;
    return `The body must be ${taken}, not ${sent}.`;
  }
  return null;
}

/** `65536 bytes (64 KiB)`; bytes alone for a limit that is no whole number of KiB. */
function shownBytes(bytes: number): string {
  if (bytes % 1024 !== 0) return `${bytes} bytes`;
  return bytes % (1024 * 1024) === 0 ? `${bytes} bytes (${bytes / (1024 * 1024)} MiB)` : `${bytes} bytes (${bytes / 1024} KiB)`;
}

/** `url`: the request's, whose query a validation error may concern; `context`: what its refusal can name. */
export function toErrorReply(error: FastifyError | Error, url = '', context: RefusalContext = {}): { status: number; body: ErrorBody } {
  if (error instanceof PlatformError) return { status: error.status, body: platformErrorBody(error.type, error.reason, error.details) };
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const part = fastifyError.validationContext ?? 'body';
    return { status: 400, body: platformErrorBody(VALIDATION_TYPES[part] ?? 'DecodingFailed', validationReason(fastifyError, url, context.queryParameters, context.sent)) };
  }
  // A full disk (or quota) is no fault of the request: the operator must make room; the client may retry.
  if (fastifyError.code === 'ENOSPC' || fastifyError.code === 'EDQUOT') {
    return { status: 507, body: platformErrorBody('InsufficientStorage', 'The server has no space left to store this request; retry later.') };
  }
  // Out of file descriptors (a flood of connections): a condition of the moment, not a fault; the client may retry.
  if (fastifyError.code === 'EMFILE' || fastifyError.code === 'ENFILE') {
    return { status: 503, body: platformErrorBody('ServiceUnavailable', 'The server has too many files open; retry shortly.') };
  }
  const known = fastifyError.code ? CLIENT_ERRORS[fastifyError.code] : undefined;
  if (known) {
    const reason = bodyRefusalReason(fastifyError.code, context) ?? formRefusalReason(fastifyError.code) ?? fastifyError.message;
    return { status: known[0], body: platformErrorBody(known[1], reason) };
  }
  // JSON syntax errors from the body parser, and busboy's malformed-multipart errors, carry a 4xx status.
  const status = fastifyError.statusCode;
  if (status === 429) return { status, body: platformErrorBody('TooManyRequests', fastifyError.message) };
  if (status === 503) return { status, body: platformErrorBody('ServiceUnavailable', fastifyError.message) };
  if (status !== undefined && status >= 400 && status < 500) return { status, body: platformErrorBody('MalformedRequest', fastifyError.message) };
  if (/multipart|boundary|part terminated/i.test(error.message)) return { status: 400, body: platformErrorBody('InvalidFile', error.message) };
  return { status: 500, body: platformErrorBody('UnexpectedError', 'An unexpected error occurred; it has been logged.') };
}

/**
 * The connection closed before the whole request arrived (an upload cut short by the client, or by
 * the request timeout): Node fails the request stream with an error of its own, and reading the body
 * fails with that very error. Matching the object itself, not a message or code, keeps a server
 * fault that merely coincides with a disconnect a 500.
 */
function isClientDisconnect(error: Error, request: FastifyRequest): boolean {
  return request.raw.errored !== null && error === request.raw.errored;
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isClientDisconnect(error, request)) {
    // Not a fault of the server, and no one is left to read the answer: logged as any request whose client
    // left is (abandoned-requests.ts), with one info line.
    return reply.code(400).send(platformErrorBody('MalformedRequest', 'The connection closed before the request was complete.'));
  }
  withoutRepresentationHeaders(reply);
  // A request refused before its body was read (a declared length no file fits, a permission): as on the literature routes.
  closeIfBodyUnread(request, reply);
  // An article of the literature project read from an index file damaged since the load: as on the literature routes.
  const damaged = damagedIndexAnswer(error, request.log);
  if (damaged) return reply.code(damaged.status).send(platformErrorBody('ServiceUnavailable', damaged.message));
  const { status, body } = toErrorReply(error, request.url, {
    bodyLimit: request.routeOptions.bodyLimit,
    contentType: request.headers['content-type'],
    ownMediaType: request.routeOptions.schema?.documentedBody?.mediaType,
    queryParameters: Object.keys((request.routeOptions.schema?.querystring as { properties?: object } | undefined)?.properties ?? {}),
    sent: { querystring: request.query, params: request.params, body: request.body },
  });
  if (error instanceof StoreUnavailableError) {
    logStoreUnavailable(request, error);
  } else if (status === 503 || status === 507) {
    // Overload, a full disk, no descriptors left: conditions the operator reads about, not bugs with a stack.
    // Under overload they come by the thousand, so one short line each.
    request.log.warn({ status, reason: error.message }, 'platform request refused');
  } else if (status >= 500) request.log.error({ err: error }, 'platform request failed');
  if (error instanceof RetryLaterError) reply.header('retry-after', String(error.retryAfterSeconds));
  if (status === 401) reply.header('WWW-Authenticate', 'Bearer');
  return reply.code(status).send(body);
}

/**
 * The line of a request the platform store failed while the database was away: one a request, often thousands a
 * second then, so its cause without a stack. `fields` add what the request was doing (an archive's id).
 */
export function logStoreUnavailable(request: FastifyRequest, error: StoreUnavailableError, fields: object = {}): void {
  request.log.warn({ ...fields, cause: (error.cause as Error | undefined)?.message }, 'platform store unavailable');
}

/** What a handler set about the content it meant to send (a download's type, range, length, name, tag): the error body is another. */
const REPRESENTATION_HEADERS = ['content-type', 'content-length', 'content-range', 'content-disposition', 'content-encoding', 'etag', 'last-modified', 'accept-ranges'];

/**
 * A download whose content fails to open fails after its handler set the file's headers: sent with the
 * error body, they would describe it as the file (and fastify, finding the error body an object under the
 * file's media type, would answer its own 500 instead).
 */
function withoutRepresentationHeaders(reply: FastifyReply): void {
  for (const name of REPRESENTATION_HEADERS) reply.removeHeader(name);
}
