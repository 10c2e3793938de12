/**
 * The JSON body parser of the literature API, and the reading of a body's
 * text that /v1's parser shares (jsonBodyText). Fastify's own read any bytes
 * as UTF-8 (a Latin-1 `plàce` became `pl\uFFFDce`, and the question asked was
 * another one, while the same text in a query string is refused), kept lone
 * surrogates, ignored the charset and Content-Encoding, called a `__proto__`
 * key "not valid JSON" and let a repeated key silently win. This one refuses
 * each of those, naming what is wrong, in the literature error vocabulary.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from './errors.js';
import { repeatedKeys, quotedKey, writtenKeyCount } from '../text/repeated-keys.js';
import { surveyPayload } from '../platform/payload-survey.js';

// /v1's payload parser names keys as this one does; it may not import corpus/ itself.
export { quotedKey };

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Replaces the application/json parser of `app` and the plugins registered on it afterwards, and removes
 * fastify's text/plain one: plain text is no body of this API, so it is 415 as any other media type is
 * (read as a string, it reached the schema and was refused as 422 "body must be object").
 */
export function parseLiteratureJson(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseBody(request, body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** Why a JSON body's bytes cannot be read as text: its status and the sentence saying why. */
export interface BodyTextProblem {
  status: 400 | 415;
  reason: string;
}

/** The content coding a request's body is sent in, null for none (`identity`): nothing here decodes one. */
export function contentCodingOf(request: FastifyRequest): string | null {
  const coding = request.headers['content-encoding'];
  return coding === undefined || coding.trim().toLowerCase() === 'identity' ? null : coding;
}

/**
 * The text of a JSON body, or why it has none: a content coding (nothing here decodes one), a charset
 * other than UTF-8, or bytes that are not UTF-8. Fastify's parser read any bytes as UTF-8 with U+FFFD
 * in place of the bad ones, so the text stored or asked was another one. Both APIs read bodies through it.
 */
export function jsonBodyText(request: FastifyRequest, bytes: Buffer): { text: string } | BodyTextProblem {
  const encoding = contentCodingOf(request);
  if (encoding !== null) return { status: 415, reason: `Content-Encoding ${encoding} is not supported; send the JSON body uncompressed` };
  const charsets = charsetsOf(request.headers['content-type'] ?? '');
  // A parameter may be given once (RFC 6838 §4.3): which of two the sender meant would be a guess.
  if (charsets.length > 1) return { status: 415, reason: `the charset parameter is repeated in Content-Type (${charsets.join(', ')}); give it once, as UTF-8` };
  const charset = charsets[0];
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return { status: 415, reason: `charset ${charset} is not supported; send the JSON body in UTF-8` };
  try {
    return { text: STRICT_UTF8.decode(bytes) };
  } catch {
    return { status: 400, reason: 'the body is not valid UTF-8 (send JSON in UTF-8, or escape non-ASCII characters as \\uXXXX)' };
  }
}

function parseBody(request: FastifyRequest, bytes: Buffer): unknown {
  const read = jsonBodyText(request, bytes);
  if (!('text' in read)) throw new ApiError(read.status, ErrorCode.INVALID_INPUT, read.reason);
  const { text } = read;
  if (text === '') throw new ApiError(400, ErrorCode.INVALID_INPUT, 'the body is empty, but Content-Type says application/json');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, `the body is not valid JSON: ${(error as Error).message}`);
  }
  const keys = refuseUnsafeKeysAndText(value);
  const repeated = firstRepeatedKey(text, keys);
  if (repeated !== null) throw new ApiError(422, ErrorCode.INVALID_INPUT, `${quotedKey(repeated)} may be given only once`, { parameter: repeated });
  return value;
}

/**
 * The first key given twice in one object of a valid JSON text, as a path ("paragraphs[2].title"), or null.
 * `parsedKeys`, the keys its parse holds in all (PayloadSurvey's `keys`), spares the scan of every object's keys when
 * none repeats: the parse then holds as many as the text writes.
 */
export function firstRepeatedKey(text: string, parsedKeys?: number): string | null {
  if (parsedKeys !== undefined && parsedKeys === writtenKeyCount(text)) return null;
  const repeated = repeatedKeys(text)[0];
  if (!repeated) return null;
  return repeated.path === '' ? repeated.key : `${repeated.path}.${repeated.key}`;
}

/** The charset parameters of a Content-Type, lower-cased: none, one, or a repeated one. */
function charsetsOf(contentType: string): string[] {
  return [...contentType.matchAll(/;\s*charset\s*=\s*"?([^";\s]*)/gi)].map((match) => match[1]!.toLowerCase());
}

/**
 * Refuses strings or keys holding a lone surrogate (a `\uD800` escape: no UTF-8 spells one, so a query
 * string cannot carry it either), then prototype keys (fastify's parser refused them as "not valid JSON").
 * Returns how many keys the body holds, for firstRepeatedKey.
 */
function refuseUnsafeKeysAndText(root: unknown): number {
  const { holdsLoneSurrogate, prototypeKey, keys } = surveyPayload(root);
  if (holdsLoneSurrogate) throw loneSurrogate();
  if (prototypeKey !== null) throw new ApiError(422, ErrorCode.INVALID_INPUT, `the key "${prototypeKey}" is not accepted`, { parameter: prototypeKey });
  return keys;
}

function loneSurrogate(): ApiError {
  return new ApiError(400, ErrorCode.INVALID_INPUT, 'the body holds a \\uD800-\\uDFFF escape that is not half of a surrogate pair (it is no character, and UTF-8 cannot carry it)');
}
