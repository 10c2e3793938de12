/**
 * --max-archive-downloads-per-client: the archive ZIP downloads one client (its clientKey: an IPv6
 * address by its /64, the client's own behind a --trust-proxy proxy) may have in progress at once.
 * One more is refused at once, 429 TooManyRequests with Retry-After, before the archive is read.
 *
 * Why a bound on downloads at once, not on what one download costs: a deflated entry costs CPU per
 * byte of its content, not per byte sent. A 4.3 GB file of zeros kept 65% of a core busy for 47 s
 * (deflate on libuv's pool, the checksum on this thread) to send 4 MB, and a client allowed half of
 * --max-in-flight could run many such downloads, every core of a small machine. Bounding the ratio
 * within an entry (storing the rest once it shrank too much) is not done: the ZIP writer deflates or
 * stores an entry as a whole. It owns its deflate stream (archive/zip-writer.ts), so switching that
 * to level 0 mid-entry (zlib's params()) would be possible. The sample of compressibility.ts cannot
 * bound it either: it reads the first 64 KiB, and zeros after them pass. So what one client may
 * occupy is bounded instead: about two thirds of a core per download.
 *
 * A slot is held for the whole request, HEAD included (it answers what a GET would), and given back
 * when the request ends: the ZIP sent, or the client gone.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RetryLaterError } from '../../platform/errors.js';
import { clientKey } from '../client-address.js';
import { whenRequestEnds } from '../request-end.js';

/**
 * Seconds a refused client is told to wait. When a download ends is unknown (it lasts as long as its
 * client takes to read it); a refusal costs the server nothing, so a short wait costs at most another.
 */
const RETRY_AFTER_SECONDS = 10;

export class ArchiveDownloadSlots {
  /** Only clients with a download in progress: an entry goes when its count reaches 0. */
  private readonly heldByClient = new Map<string, number>();

  /** `perClient`: downloads one client may have in progress at once; 0 = no limit. */
  constructor(private readonly perClient: number) {}

  /** Holds one of the request's client's slots until the request ends; throws 429 when it holds them all. */
  claim(request: FastifyRequest, reply: FastifyReply): void {
    if (this.perClient <= 0) return;
    // Read once: the same key must be given back, whatever the socket says once it is gone.
    const client = clientKey(request.ip);
    const held = this.heldByClient.get(client) ?? 0;
    if (held >= this.perClient) {
      throw new RetryLaterError(
        429,
        'TooManyRequests',
        `This client already has ${held} archive downloads in progress, the most it may have at once (--max-archive-downloads-per-client); retry once one has finished.`,
        RETRY_AFTER_SECONDS,
      );
    }
    // A client gone already holds nothing: its end has come and would not come again.
    if (!whenRequestEnds(request, reply, () => this.release(client))) return;
    this.heldByClient.set(client, held + 1);
  }

  private release(client: string): void {
    const left = this.heldByClient.get(client)! - 1;
    if (left === 0) this.heldByClient.delete(client);
    else this.heldByClient.set(client, left);
  }
}
