/**
 * The names a tag may be given, as Nexus's UserTag allows them: 1 to 64 ASCII characters, but not
 * `latest`, which Nexus reserves for the latest revision, nor `__proto__`, which the embedded store
 * cannot keep. Spaces and `/` are ASCII and allowed, as there (a tag deletion names them
 * percent-encoded: `…/tags/a%2Fb`). Nexus's ASCII also holds the
 * control characters; they are refused here: no one types them, listings and logs show them as
 * nothing, and Nexus's own store (PostgreSQL jsonb) cannot hold a NUL.
 * Checked when a tag is written only: a tag stored before these rules still reads and deletes.
 */
import { rejections } from './errors.js';

export const MAX_TAG_LENGTH = 64;
/** The tag Nexus reserves: it names the latest revision, in archives (not a 404 TagNotFound) as in reads. */
export const LATEST_TAG = 'latest';
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export function checkNewTagName(name: string): void {
  if (!PRINTABLE_ASCII.test(name)) throw rejections.invalidTagName("a tag holds printable ASCII characters only (space to '~')");
  if (name.length === 0 || name.length > MAX_TAG_LENGTH) {
    throw rejections.invalidTagName(`a tag has 1 to ${MAX_TAG_LENGTH} characters, not ${name.length}`);
  }
  if (name === LATEST_TAG) throw rejections.invalidTagName(`'${LATEST_TAG}' is reserved: it names the latest revision`);
  // The embedded store's encoding (msgpackr) renames the key `__proto__` as it reads it back, so the tag would be
  // stored under another name.
  if (name === '__proto__') throw rejections.invalidTagName("'__proto__' cannot be stored as a tag name");
}
