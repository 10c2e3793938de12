/**
 * Accept-Encoding (RFC 9110 §12.5.3) for a file held both as is (identity)
 * and gzipped. Gzip is sent when the header accepts it (listed, or covered by
 * `*`, with a q-value above 0) at least as much as identity (listed, covered
 * by `*`, or else ranked below any listed coding). Otherwise the file goes as
 * is: also without the header (a client that decodes gzip says so) and when
 * neither form is acceptable (`gzip;q=0, identity;q=0`), where §12.5.3 says a
 * server should send no content coding rather than refuse: the page loads.
 */
import { weightedMembers } from '../weighted-list.js';

export type ContentCoding = 'gzip' | 'identity';

/** The q-value of each coding the header lists, by lower-case name (`x-gzip` is gzip, RFC 9110 §8.4.1.3). */
function qualities(header: string): Map<string, number> {
  const listed = new Map<string, number>();
  for (const { name, q } of weightedMembers(header)) if (name !== '') listed.set(name === 'x-gzip' ? 'gzip' : name, q);
  return listed;
}

export function chooseCoding(header: string | undefined): ContentCoding {
  if (header === undefined) return 'identity';
  const listed = qualities(header);
  const gzip = listed.get('gzip') ?? listed.get('*') ?? 0;
  const identity = listed.get('identity') ?? listed.get('*');
  if (gzip === 0) return 'identity';
  return identity === undefined || gzip >= identity ? 'gzip' : 'identity';
}
