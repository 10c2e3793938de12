/**
 * The download of a /v1 file: its content in its own media type, whole or one byte range, or its
 * metadata for a caller naming JSON, under the request's preconditions (304, 412, 416).
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import type { FileState } from '../../platform/files.js';
import { entityView } from '../../platform/metadata.js';
import type { ProjectState } from '../../platform/projects.js';
import type { FileAttributes } from '../../platform/revisions.js';
import { responseCutByServer } from '../abandoned-requests.js';
import { matchesEtag } from '../entity-tags.js';
import { parseAccept, rank } from '../negotiation.js';
import { byteRangeOf, rangeStillApplies } from './byte-range.js';
import { renderCallerOfRequest } from './caller.js';
import { platformErrorBody } from './errors.js';
import { checkReadPreconditions } from './preconditions.js';

/**
 * Metadata when the caller names JSON explicitly (not through a wildcard) at
 * least as strongly as the file's own type: `*\/*` gets the content (as it
 * does for a JSON file, whose content cannot be asked for by its own type).
 */
function wantsMetadata(accept: string | undefined, mediaType: string): boolean {
  const ranges = parseAccept(accept);
  const explicit = ['application/ld+json', 'application/json']
    .map((type) => rank(ranges, type))
    .filter((r) => r !== null && r.specificity === 2 && r.q > 0)
    .map((r) => r!.q);
  if (explicit.length === 0) return false;
  const content = rank(ranges, mediaType);
  return content === null || Math.max(...explicit) >= content.q;
}

/** The strong entity tag of a file's content: its digest, quoted. */
export function etagOf(file: FileAttributes): string {
  return `"${file.digest}"`;
}

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266). */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // encodeURIComponent leaves ' ( ) * as they are, which RFC 8187's attr-char does not allow (' delimits the charset and language).
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Answers a GET or HEAD of the file revision `state` of `project`, by its Accept, Range and preconditions. */
export async function sendFileDownload(request: FastifyRequest, reply: FastifyReply, platform: Platform, state: FileState, project: ProjectState): Promise<FastifyReply> {
  const { files, baseUri } = platform;
  const { file } = state;
  if (wantsMetadata(request.headers.accept, file.mediaType)) {
    return reply.type('application/ld+json').send(await platform.renderer.json(entityView(state, project, baseUri), 'compacted', renderCallerOfRequest(request)));
  }
  const content = rank(parseAccept(request.headers.accept), file.mediaType);
  if (content === null || content.q === 0) {
    throw new PlatformError(406, 'NotAcceptable', `The file is ${file.mediaType}; its metadata is application/ld+json.`);
  }
  const etag = etagOf(file);
  checkReadPreconditions(request.headers, { etag, updatedAt: state.updatedAt });
  // A client holding these bytes already (the same digest) is told so instead of sent them again.
  if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).header('ETag', etag).send();
  // Checked before the range: a file whose bytes are gone answers so whatever range is asked.
  const openContent = files.checkedContent(state);
  // Range is defined for GET only (RFC 9110 §14.2): a HEAD gets the headers of the whole file.
  const rangeApplies = request.method === 'GET' && rangeStillApplies(request.headers['if-range'], etag);
  const range = rangeApplies ? byteRangeOf(request.headers.range, file.bytes) : 'whole';
  if (range === 'unsatisfiable') {
    return reply
      .code(416)
      .header('Content-Range', `bytes */${file.bytes}`)
      .send(platformErrorBody('RangeNotSatisfiable', `The range '${request.headers.range}' selects no byte of the file's ${file.bytes}.`));
  }
  // A HEAD sends no body: the file is not read (fastify would read a stream to its end and drop it),
  // and an empty stream keeps the Content-Length set here, which an absent body would make 0.
  const bytes = request.method === 'HEAD' ? Readable.from([]) : openContent(range === 'whole' ? undefined : range);
  // A content found changed at its end is cut by the server, its error logged by the file service: no client's departure.
  bytes.once('error', () => responseCutByServer(request));
  reply.type(file.mediaType).header('Accept-Ranges', 'bytes').header('Content-Disposition', contentDisposition(file.filename)).header('ETag', etag);
  if (range === 'whole') return reply.header('Content-Length', file.bytes).send(bytes);
  return reply
    .code(206)
    .header('Content-Range', `bytes ${range.start}-${range.end}/${file.bytes}`)
    .header('Content-Length', range.end - range.start + 1)
    .send(bytes);
}
