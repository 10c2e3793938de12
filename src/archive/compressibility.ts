/**
 * Whether deflating a file is worth it. Already-compressed media types are
 * stored as they are; for the others the first 64 KiB are deflated at the
 * fastest level, and content that does not shrink by at least 5% is stored
 * too. Deflating incompressible data costs most of an archive's CPU time
 * and gains nothing.
 */
import { deflateRawSync } from 'node:zlib';

export const SAMPLE_BYTES = 64 * 1024;

const ALREADY_COMPRESSED =
  /^(image\/(?!svg|bmp|x-portable|tiff)|video\/|audio\/(?!wav|x-wav)|application\/(zip|gzip|x-gzip|x-bzip2|x-xz|zstd|x-7z-compressed|x-rar-compressed|vnd\.rar))/;

export function isAlreadyCompressedType(mediaType: string): boolean {
  return ALREADY_COMPRESSED.test(mediaType);
}

export function sampleCompresses(sample: Buffer): boolean {
  if (sample.length === 0) return false;
  return deflateRawSync(sample, { level: 1 }).length <= sample.length * 0.95;
}
