/**
 * /v1/files/{org}/{project}[/{id}]: multipart uploads (part `file`) streamed
 * to disk, content download by latest revision, `?rev=` or `?tag=` (304 when
 * the client holds it), metadata for JSON callers, listing, tags, deprecation
 * and undeprecation.
 */
import { Readable } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { PlatformError, rejections } from '../../platform/errors.js';
import type { Upload } from '../../platform/files.js';
import type { Platform } from '../../platform/index.js';
import { createOrUpdate } from '../../platform/put-write.js';
import type { ProjectRef } from '../../platform/refs.js';
import { entityView, writeResponse } from '../../platform/metadata.js';
import type { EntityWrite, FileAttributes } from '../../platform/revisions.js';
import { matchesEtag } from '../entity-tags.js';
import { typed } from '../typed.js';
import { byteRangeOf, rangeStillApplies } from './byte-range.js';
import { callerOf, renderCallerOfRequest } from './caller.js';
import { filteredListingPage } from './listing-pages.js';
import { platformErrorBody } from './errors.js';
import { parseAccept, rank } from '../negotiation.js';
import { responseCutByServer } from '../abandoned-requests.js';
import { COLLECTION, checkPreconditions, checkReadPreconditions, existing } from './preconditions.js';
import { selectorFrom } from './selectors.js';
import { writersOnly } from './writers.js';
import {
  bytesSchema,
  described,
  entitySchema,
  errorResponse,
  errorResponses,
  header,
  fileUploadBody,
  idParams,
  filteredListingQuery,
  listSchema,
  noQuery,
  projectParams,
  requiredRevQuery,
  rev,
  selectorQuery,
  tag,
  tagList,
  tagListSchema,
  mediaTypeResponse,
  responses,
  updateRev,
  VARY_ON_ACCEPT,
  REFUSALS_VARY_ON_ACCEPT,
  withTagParam,
} from './schemas.js';
import type { ResponseHeaders } from '../openapi-transform.js';
import { contentCodingOf } from '../json-body.js';

/**
 * The download's answers: the content in the file's own media type, or its metadata for a caller naming JSON
 * (200, `wantsMetadata`), part of the content for a `Range` (206), nothing for a client holding it (304), a range
 * past the end (416, in the 4xx schema's shape), errors.
 */
const downloadResponses = {
  200: mediaTypeResponse("The file's bytes, in its own media type (_mediaType); its metadata for a caller that names JSON in Accept", {
    '*/*': bytesSchema,
    'application/ld+json': entitySchema,
  }),
  206: mediaTypeResponse('The bytes the Range header selects (named by Content-Range), in the media type of the file', { '*/*': bytesSchema }),
  304: { description: "Not Modified: If-None-Match names the file's ETag, so the client holds its bytes already", type: 'null' },
  416: errorResponse('RangeNotSatisfiable: the Range starts past the end of the file, or asks for its last 0 bytes'),
  ...errorResponses,
};

/** The headers a download sends with the content (not with the metadata). */
const WITH_CONTENT = 'Sent with the content, not with the metadata.';
const ETAG = "The content's strong entity tag: its SHA-256 digest (_digest), quoted.";
const contentHeaders = {
  ETag: header(`${ETAG} ${WITH_CONTENT}`),
  'Accept-Ranges': header(`bytes: a Range may ask for part of the content. ${WITH_CONTENT}`),
  'Content-Disposition': header(
    `attachment, with filename (printable ASCII; other characters, " and \\ as _) and filename*=UTF-8''… (the exact name, percent-encoded: RFC 6266, RFC 8187). ${WITH_CONTENT}`,
  ),
  Vary: VARY_ON_ACCEPT,
};
/** The download's headers by status (the route's `responseHeaders`); its HEAD sends those of 200 and 304. */
const downloadHeaders: ResponseHeaders = {
  200: { ...contentHeaders, 'Content-Length': header("The file's size in bytes (_bytes), HEAD's answer too; with the metadata, the metadata's.", { type: 'integer', minimum: 0 }) },
  206: {
    ...contentHeaders,
    'Content-Range': header('The part sent: bytes {first}-{last}/{file size}, positions from 0.'),
    'Content-Length': header('The size of the part sent: last - first + 1 bytes.', { type: 'integer', minimum: 1 }),
  },
  304: { ETag: header(`${ETAG} If-None-Match named it.`), Vary: VARY_ON_ACCEPT },
  416: { 'Content-Range': header('bytes */{file size}: the range asked selects no byte of the file.'), Vary: VARY_ON_ACCEPT },
  ...REFUSALS_VARY_ON_ACCEPT,
};

/** The request headers the download reads (a HEAD all but Range and If-Range). */
const downloadRequestHeaders = {
  Range: header(
    'One range of bytes: bytes=first-last, bytes=first- or bytes=-suffix, answered 206; one starting past the end (or bytes=-0) is 416. ' +
      'Several ranges, another unit or a header that does not parse get the whole content (200).',
  ),
  'If-Range': header("The content's ETag: the Range applies only to these bytes; anything else (a date too) gets the whole content."),
  'If-None-Match': header("Entity tags, compared weakly: one naming the content's ETag (or *) is answered 304 without the content."),
  'If-Match': header("Entity tags, compared strongly: the content is sent only if one names its ETag (or *); else 412. A resumed download's guard."),
  'If-Unmodified-Since': header("An HTTP-date: without If-Match, 412 when the revision's _updatedAt is later (to the second)."),
};

/** The permissions of the file routes. */
const WRITE_PERMISSION = 'Needs files/write on the project.';
const READ_PERMISSION = 'Needs resources/read on the project.';

const storageQuery = {
  storage: described({ type: 'string' }, 'The storage to write to: only the default disk storage (defaultStorage) exists, and is the default; any other is 404 StorageNotFound.'),
} as const;

/** What an upload takes. */
const UPLOAD =
  "A multipart/form-data body with one part named file, streamed to disk while hashed (SHA-256): the part's filename becomes _filename " +
  '(1 to 255 characters, no / or \\, no control or invisible character), its Content-Type _mediaType; at most --max-upload-bytes (10 GiB by default, 413 FileTooLarge above). ';

/**
 * How busboy reads an upload: the file name as sent, so that a path is refused rather than cut to
 * its last segment, and one file per request, so that a second file part is an error (FST_FILES_LIMIT)
 * rather than a part nobody reads.
 */
const UPLOAD_OPTIONS = { preservePath: true, limits: { files: 1 } };

const MAX_BOUNDARY_LENGTH = 70;

/**
 * What a multipart body may hold besides its file, at most, with the limits the multipart parser is
 * given (index.ts: 10 fields of 64 KiB, 20 parts with their headers and boundaries): well under this.
 */
const MULTIPART_REST_BYTES = 4 * 1024 * 1024;

/** The boundary parameter of a multipart media type, unquoted, or null without one. */
function multipartBoundary(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  return match === null ? null : (match[1] ?? match[2] ?? '');
}

/** Reads the `file` part of a multipart body as an upload; the caller consumes its stream. */
async function uploadOf(request: FastifyRequest, maxFileBytes: number): Promise<Upload> {
  if (!request.isMultipart()) {
    throw new PlatformError(415, 'UnsupportedMediaType', "Files are uploaded as multipart/form-data with a part named 'file'.");
  }
  // Content codings are refused as on the JSON routes: a gzipped body would be stored as its compressed bytes.
  const coding = contentCodingOf(request);
  if (coding !== null) throw new PlatformError(415, 'UnsupportedMediaType', `Uploads are taken without a content coding, not '${coding}'.`);
  // RFC 2046 bounds a boundary at 70 characters; the multipart parser fails past 252 with an error of its own.
  const boundary = multipartBoundary(request.headers['content-type'] ?? '');
  if (boundary !== null && boundary.length > MAX_BOUNDARY_LENGTH) {
    throw rejections.invalidFile(`The multipart boundary has ${boundary.length} characters; at most ${MAX_BOUNDARY_LENGTH} are allowed (RFC 2046).`);
  }
  // A body declared too long for any file that fits is refused before it is read (and before a 100 Continue):
  // it had been read whole, up to the request timeout, for a 413 at its end.
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxFileBytes + MULTIPART_REST_BYTES) throw rejections.fileTooLarge(maxFileBytes);
  // A connection that closed before its body was read would never deliver a part: fail with the
  // connection's own error (answered as a client disconnect) instead of waiting for ever.
  if (request.raw.errored) throw request.raw.errored;
  const files = request.files(UPLOAD_OPTIONS);
  const first = await files.next();
  const part = first.done ? undefined : first.value;
  if (!part) {
    throw rejections.invalidFile(
      "The multipart body holds no file: a part named 'file' with a file name is needed (Content-Disposition: form-data; name=\"file\"; filename=\"…\"); a part without a file name is a form field.",
    );
  }
  if (part.fieldname !== 'file') {
    part.file.resume();
    throw rejections.invalidFile(`The multipart body's file part is named '${part.fieldname}': it must be named 'file'.`);
  }
  return {
    // A part busboy takes for a file by its media type alone has no name: refused as an empty one.
    filename: part.filename ?? '',
    mediaType: part.mimetype,
    content: Readable.from(soleFile(part.file, files), { objectMode: false }),
    isTruncated: () => part.file.truncated,
  };
}

/**
 * The file part's bytes, ending only once the rest of the body has been read: the store keeps
 * nothing whose stream failed, so a request with a second file part stores nothing.
 */
async function* soleFile(content: Readable, rest: AsyncIterator<MultipartFile>): AsyncGenerator<Buffer> {
  yield* content;
  try {
    // Resolves at the end of the body (fields after the file are ignored, as those before it are).
    await rest.next();
  } catch (error) {
    if ((error as FastifyError).code === 'FST_FILES_LIMIT') throw rejections.invalidFile('One file is uploaded per request: the body has a second file part.');
    throw error;
  }
}

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
function etagOf(file: FileAttributes): string {
  return `"${file.digest}"`;
}

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266). */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // encodeURIComponent leaves ' ( ) * as they are, which RFC 8187's attr-char does not allow (' delimits the charset and language).
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export async function fileRoutes(app: FastifyInstance, { platform }: { platform: Platform }): Promise<void> {
  const api = typed(app);
  const { files, baseUri } = platform;
  /**
   * Refuses a caller who may not write files in the project before the body of a tag, deprecation or
   * undeprecation is read. Uploads check it in their handler, before they read their stream.
   */
  const writers = writersOnly((request, caller) => {
    const { org, project } = request.params as ProjectRef;
    files.requireWriter({ org, project }, caller);
  });
  /**
   * Throws 412 unless the request's preconditions hold for the file's content, for a caller who may perform
   * the write (else 403, as without them) and a file the write takes (else the write's refusal); `storage`:
   * the one an upload names.
   */
  const preconditionsOf = (request: FastifyRequest, ref: ProjectRef, id: string, write: EntityWrite, storage?: string) =>
    checkPreconditions(request.headers, async () => {
      const found = await existing(files.readForWriter(ref, id, write, storage, callerOf(request)), write, 'FileNotFound');
      return found === null ? null : { etag: etagOf(found.file!), updatedAt: found.updatedAt };
    });
  api.post(
    '/files/:org/:project',
    {
      schema: {
        summary: 'Upload a file',
        description: `${UPLOAD}Creates the file under a new id (the project's base and a UUID) and answers its metadata (201). ${WRITE_PERMISSION}`,
        params: projectParams,
        querystring: { ...noQuery, properties: storageQuery },
        documentedBody: fileUploadBody,
        response: responses(entitySchema, 201),
      },
    },
    async (request, reply) => {
      await checkPreconditions(request.headers, async () => {
        await files.projectForWriter(request.params, request.query.storage, callerOf(request));
        return COLLECTION;
      });
      const state = await files.create(request.params, undefined, request.query.storage, () => uploadOf(request, files.maxFileBytes), callerOf(request));
      return reply.code(201).send(writeResponse(state, baseUri));
    },
  );

  api.put(
    '/files/:org/:project/:id',
    {
      schema: {
        summary: 'Upload a file under its id, or a new revision of it',
        description:
          `${UPLOAD}Without rev, creates the file under the id of the path (201; 409 when it is taken); with rev, its current revision, ` +
          `replaces its content (200). A second write of the file while one is in progress is 409 at once. ${WRITE_PERMISSION}`,
        params: idParams,
        querystring: { ...noQuery, properties: { rev: updateRev, ...storageQuery } },
        documentedBody: fileUploadBody,
        response: responses(entitySchema, 200, 201),
      },
    },
    async (request, reply) => {
      const { id: segment, ...ref } = request.params;
      const { rev, storage } = request.query;
      await preconditionsOf(request, ref, segment, createOrUpdate(rev), storage);
      const identity = callerOf(request);
      const upload = () => uploadOf(request, files.maxFileBytes);
      const state =
        rev === undefined ? await files.create(ref, segment, storage, upload, identity) : await files.update(ref, segment, rev, storage, upload, identity);
      return reply.code(rev === undefined ? 201 : 200).send(writeResponse(state, baseUri));
    },
  );

  api.get(
    '/files/:org/:project/:id',
    {
      // Bytes or metadata, by Accept.
      config: { variesByAccept: true },
      schema: {
        summary: "Download a file's content, or read its metadata",
        description:
          "The content of the latest revision, or of the one rev or tag names, in the file's media type, as an attachment; its metadata instead for a caller " +
          'whose Accept names application/json or application/ld+json at least as strongly as the media type. Takes one Range (bytes=first-last, ' +
          'first-, -suffix): 206 with that part, the whole file for several ranges or one that does not parse, 416 for one past the end; If-Range with the ' +
          'ETag applies it to the same bytes only. If-None-Match naming the ETag is 304; If-Match not naming it, or If-Unmodified-Since before the ' +
          `revision's _updatedAt, 412. Content gone from the disk, or damaged there, is 404 FileContentNotFound; a whole download whose bytes no longer match its ETag's digest is cut short of its Content-Length. ${READ_PERMISSION}`,
        params: idParams,
        querystring: selectorQuery,
        response: downloadResponses,
        responseHeaders: downloadHeaders,
        requestHeaders: downloadRequestHeaders,
      },
    },
    async (request, reply) => {
      const { id: segment, ...ref } = request.params;
      const { state, project } = await files.fetch(ref, segment, selectorFrom(request.query), callerOf(request));
      const file = state.file!;
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
    },
  );

  api.get(
    '/files/:org/:project',
    {
      schema: {
        summary: "List a project's files",
        description:
          'The files in id order, a page of them (from, size), under the filters given (all must hold); _total counts what the filters keep, _next links ' +
          `the next page. A filtered listing of a project holding more than 20,000 files is 400 FilteredListingTooLarge. ${READ_PERMISSION}`,
        params: projectParams,
        querystring: filteredListingQuery,
        response: responses(listSchema, 200),
      },
    },
    async (request) => {
      const { org, project } = request.params;
      return filteredListingPage(baseUri, `/v1/files/${org}/${project}`, request.query, (from, size, filters) =>
        files.list(request.params, from, size, callerOf(request), filters),
      );
    },
  );

  api.get(
    '/files/:org/:project/:id/tags',
    {
      schema: {
        summary: "List a file's tags",
        description: `The tags of the latest revision, or of the one rev or tag names, each with the revision it names. ${READ_PERMISSION}`,
        params: idParams,
        querystring: selectorQuery,
        response: responses(tagListSchema, 200),
      },
    },
    async (request) => {
      const { id: segment, ...ref } = request.params;
      return tagList((await files.fetch(ref, segment, selectorFrom(request.query), callerOf(request))).state);
    },
  );

  api.post(
    '/files/:org/:project/:id/tags',
    {
      bodyLimit: 64 * 1024,
      preParsing: writers,
      schema: {
        summary: 'Tag a revision of a file',
        description: `Sets the tag (1 to 64 printable ASCII characters, not latest) to the revision rev of the body, in a new revision. ${WRITE_PERMISSION}`,
        params: idParams,
        querystring: requiredRevQuery,
        body: { type: 'object', required: ['tag', 'rev'], additionalProperties: false, properties: { tag, rev } },
        response: responses(entitySchema, 201),
      },
    },
    async (request, reply) => {
      const { id, ...ref } = request.params;
      await preconditionsOf(request, ref, id, { kind: 'tag', rev: request.query.rev });
      const state = await files.tag(ref, id, request.query.rev, request.body.tag, request.body.rev, callerOf(request));
      return reply.code(201).send(writeResponse(state, baseUri));
    },
  );

  api.delete(
    '/files/:org/:project/:id/tags/:tag',
    {
      preParsing: writers,
      schema: {
        summary: "Remove a file's tag",
        description: `Removes the tag in a new revision. ${WRITE_PERMISSION}`,
        params: withTagParam(idParams),
        querystring: requiredRevQuery,
        response: responses(entitySchema, 200),
      },
    },
    async (request) => {
      const { id, tag: name, ...ref } = request.params;
      await preconditionsOf(request, ref, id, { kind: 'untag', rev: request.query.rev, tag: name });
      return writeResponse(await files.untag(ref, id, request.query.rev, name, callerOf(request)), baseUri);
    },
  );

  api.delete(
    '/files/:org/:project/:id',
    {
      preParsing: writers,
      schema: {
        summary: 'Deprecate a file',
        description: `A new revision with _deprecated true: the file takes no change until it is undeprecated, and is still downloaded. ${WRITE_PERMISSION}`,
        params: idParams,
        querystring: requiredRevQuery,
        response: responses(entitySchema, 200),
      },
    },
    async (request) => {
      const { id, ...ref } = request.params;
      await preconditionsOf(request, ref, id, { kind: 'deprecate', rev: request.query.rev });
      return writeResponse(await files.deprecate(ref, id, request.query.rev, callerOf(request)), baseUri);
    },
  );

  api.put(
    '/files/:org/:project/:id/undeprecate',
    {
      preParsing: writers,
      schema: {
        summary: 'Undeprecate a file',
        description: `A new revision with _deprecated false; 400 when it is not deprecated. ${WRITE_PERMISSION}`,
        params: idParams,
        querystring: requiredRevQuery,
        response: responses(entitySchema, 200),
      },
    },
    async (request) => {
      const { id, ...ref } = request.params;
      await preconditionsOf(request, ref, id, { kind: 'undeprecate', rev: request.query.rev });
      return writeResponse(await files.undeprecate(ref, id, request.query.rev, callerOf(request)), baseUri);
    },
  );
}
