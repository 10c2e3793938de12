/**
 * The upload of a /v1 file route: the `file` part of a multipart/form-data body, refused before it is read
 * when its framing or declared length cannot hold an acceptable file, and streamed to the caller while the
 * rest of the body is checked for a second file. The form's bounds and their refusals are upload-form.ts's.
 */
import { Readable } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyError, FastifyRequest } from 'fastify';
import { PlatformError, rejections } from '../../platform/errors.js';
import type { Upload } from '../../platform/files.js';
import { contentCodingOf } from '../json-body.js';
import { UPLOAD_FORM_LIMITS } from './upload-form.js';

/**
 * How busboy reads an upload: the file name as sent, so that a path is refused rather than cut to
 * its last segment, and one file per request, so that a second file part is an error (FST_FILES_LIMIT)
 * rather than a part nobody reads.
 */
const UPLOAD_OPTIONS = { preservePath: true, limits: { files: UPLOAD_FORM_LIMITS.files } };

const MAX_BOUNDARY_LENGTH = 70;

/**
 * What a multipart body may hold besides its file, at most, with the limits the multipart parser is
 * given (upload-form.ts: 10 fields of 64 KiB, 20 parts with their headers and boundaries): well under this.
 */
const MULTIPART_REST_BYTES = 4 * 1024 * 1024;

/** The boundary parameter of a multipart media type, unquoted, or null without one. */
function multipartBoundary(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  return match === null ? null : (match[1] ?? match[2] ?? '');
}

/** Reads the `file` part of a multipart body as an upload; the caller consumes its stream. */
export async function uploadOf(request: FastifyRequest, maxFileBytes: number): Promise<Upload> {
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
  // A body declared too long for any file that fits is refused before it is read (and before a 100 Continue),
  // rather than read whole, up to the request timeout, for a 413 at its end.
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
