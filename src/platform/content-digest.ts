/**
 * A content checked against its SHA-256 as it streams, for readers that take it whole: bytes changed on disk
 * in place (the size kept) would otherwise be served as the content its digest names. The bytes go on as they
 * are read, but for the last chunk, held back until the digest is checked: a mismatch fails the stream before
 * the reader has every byte, so a client sees a transfer cut short, never one it can take for the content.
 */
import { createHash } from 'node:crypto';
import { type Readable, Transform, type TransformCallback, pipeline } from 'node:stream';

/** `source` as it is read, failing with `mismatch()` at its end unless its bytes' SHA-256 is `digest` (hex). */
export function checkedAgainstDigest(source: Readable, digest: string, mismatch: () => Error): Readable {
  // pipeline destroys both with the first error, and the source with the reader's departure: no file stays open.
  return pipeline(source, new DigestChecked(digest, mismatch), () => {});
}

class DigestChecked extends Transform {
  private readonly hash = createHash('sha256');
  private held: Buffer | null = null;

  constructor(
    private readonly digest: string,
    private readonly mismatch: () => Error,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    if (this.held !== null) this.push(this.held);
    this.held = chunk;
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.hash.digest('hex') !== this.digest) return done(this.mismatch());
    done(null, this.held ?? undefined);
  }
}
