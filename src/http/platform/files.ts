/**
 * /v1/files/{org}/{project}[/{id}]: multipart uploads (part `file`) streamed
 * to disk, content download by latest revision, `?rev=` or `?tag=` (304 when
 * the client holds it), metadata for JSON callers, listing, tags, deprecation
 * and undeprecation.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Platform } from '../../platform/index.js';
import { defaultOf } from '../../config.js';
import { MAX_UPLOAD_FILENAME_LENGTH, asFileRevision } from '../../platform/files.js';
import { createOrUpdate } from '../../platform/put-write.js';
import type { ProjectRef } from '../../platform/refs.js';
import { writeResponse } from '../../platform/metadata.js';
import { type EntityWrite, MAX_FILTERED_ENTRIES } from '../../platform/revisions.js';
import { MAX_TAG_LENGTH } from '../../platform/tags.js';
import { typed } from '../typed.js';
import { callerOf } from './caller.js';
import { etagOf, sendFileDownload } from './file-download.js';
import { filteredListingPage } from './listing-pages.js';
import { uploadOf } from './multipart-upload.js';
import { COLLECTION, checkPreconditions, existing } from './preconditions.js';
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

/**
 * The download's answers: the content in the file's own media type, or its metadata for a caller naming JSON
 * (200, `wantsMetadata` in file-download.ts), part of the content for a `Range` (206), nothing for a client
 * holding it (304), a range past the end (416, in the 4xx schema's shape), errors.
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
  `(1 to ${MAX_UPLOAD_FILENAME_LENGTH} characters, no / or \\, no control or invisible character), its Content-Type _mediaType; ` +
  `at most --max-upload-bytes (${defaultOf('maxUploadBytes') / 1024 ** 3} GiB by default, 413 FileTooLarge above). `;

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
      return found === null ? null : { etag: etagOf(asFileRevision(found).file), updatedAt: found.updatedAt };
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
      return sendFileDownload(request, reply, platform, state, project);
    },
  );

  api.get(
    '/files/:org/:project',
    {
      schema: {
        summary: "List a project's files",
        description:
          'The files in id order, a page of them (from, size), under the filters given (all must hold); _total counts what the filters keep, _next links ' +
          `the next page. A filtered listing of a project holding more than ${MAX_FILTERED_ENTRIES.toLocaleString('en')} files is 400 FilteredListingTooLarge. ${READ_PERMISSION}`,
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
        description: `Sets the tag (1 to ${MAX_TAG_LENGTH} printable ASCII characters, not latest) to the revision rev of the body, in a new revision. ${WRITE_PERMISSION}`,
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
