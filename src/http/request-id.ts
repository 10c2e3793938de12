/**
 * Request ids: a client may send its own `x-request-id` to correlate its logs with
 * ours, but it lands in every log line and answer header, so only a short token of
 * safe characters is taken (an id of 16 KiB, or one holding spaces or quotes, could
 * bloat the log or pass for another request's); anything else gets a generated id.
 */
import { randomBytes } from 'node:crypto';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's id when it is acceptable, else null. A header given twice arrives as an array: not accepted. */
export function acceptedRequestId(header: string | string[] | undefined): string | null {
  return typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : null;
}

export function newRequestId(): string {
  return randomBytes(16).toString('hex');
}
