/**
 * The preconditions of the /v1 writes (RFC 9110 §13.1): If-Match, If-Unmodified-Since and If-None-Match,
 * evaluated in the order of §13.2.2 before the write is performed, a false one answered 412 with nothing
 * changed. Every write takes `?rev=N` as Nexus does; these headers only add the HTTP way of saying the same.
 *
 * §13.2.1: "A server MUST ignore all received preconditions if its response to the same request without
 * those conditions, prior to processing the request content, would have been a status code other than a
 * 2xx (Successful) or 412", and it evaluates them "just before it would process the request content (if
 * any) or perform the action". So every /v1 write answers, with or without the headers, in this order:
 *  1. what the request is refused for before its handler: its caller (401; the write's 403, which the file
 *     routes give in their handler, before 2), its path and query (400, 404), a JSON body's media type,
 *     size, syntax and the shape the route's schema gives it (415, 413, 400). These last are content checks
 *     the RFC would put after the preconditions; fastify makes them before any handler runs, and they
 *     answer alike with and without the headers;
 *  2. what the target refuses, decided without the request's content: a project that is missing or takes
 *     no writes, a storage that does not exist, a change of a target that does not exist (its 404: the
 *     change names a revision of nothing), a stale `rev` (409), the target's state (deprecated, not
 *     deprecated for an undeprecation, a file changed as a resource, a tag not held for its deletion, an
 *     empty ACL for its deletion), another upload of the file in progress (409);
 *  3. the preconditions (412);
 *  4. what the content is refused for: a payload's JSON-LD, ids and characters, a project's IRIs, a new
 *     tag's name and revision, an ACL's identities and a change of it that changes nothing, an archive's
 *     definition, an upload's name, media type and size (400, 413);
 *  5. a creation's refusal of a target that exists (409 ResourceAlreadyExists and the like, IncorrectRev
 *     for an ACL written from revision 0): that is what `If-None-Match: *` asks about, so the precondition
 *     answers it first, as the RFC's example of that field has it (§13.1.2).
 * The services check 2 before 4 in the write itself too, so that a request refused at 2 gets the same
 * answer with and without the headers; the target is read for the preconditions, only when such a header
 * is present, by the service that owns the write's checks: as its GET finds it, but for a caller who may
 * perform the write, whether or not they may read it. The target of a POST is its project's collection,
 * found likewise. A creation that finds no target sees it missing (null): `If-Match` is then false.
 *
 * A file's content has a strong entity tag (its quoted digest); organizations, projects, ACLs, resources
 * and archives carry none, so a list of tags never matches them and only `*` (the target exists) can.
 * If-Unmodified-Since compares with `_updatedAt`, to the second.
 *
 * The target is read before the write's transaction, not in it; that is safe because every write that
 * changes an existing target names its revision, and a creation refuses a target that exists: a change
 * between the check and the write makes the write a 409, never a write the precondition would refuse.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { PlatformError } from '../../platform/errors.js';
import { entityTagList, matchesEtag, namesStrongly } from '../entity-tags.js';

/** The target's current state, as far as preconditions look at it. */
interface Target {
  /** Its strong entity tag (a file's content), or null: no other entity carries one. */
  etag: string | null;
  /** When it last changed (ms since the epoch, `_updatedAt`), or null when it has no such date (a collection). */
  updatedAt: number | null;
}

/** An entity without an entity tag, last changed at its `_updatedAt`. */
export function untagged({ updatedAt }: { updatedAt: number }): Target {
  return { etag: null, updatedAt };
}

/**
 * The collection a POST creates in (a project's resources, files or archives), once its project is found
 * for the writer: it exists whenever the POST could succeed, has no tag and no date.
 */
export const COLLECTION: Target = { etag: null, updatedAt: null };

/**
 * The target `read` finds for `write`, or null when a creation finds none (`notFound`: the `@type` of the
 * target's own 404): the target does not exist, which is what a creation's preconditions ask about. Any
 * other refusal is the answer, as it would be without the conditions (§13.2.1): the write's 403, a project
 * that is missing or takes no writes, and the 404 of a change whose target does not exist (its `rev` names
 * a revision of nothing, so the change is refused whatever the headers say).
 */
export async function existing<T>(read: Promise<T>, write: { kind: string }, notFound: string): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (write.kind === 'create' && error instanceof PlatformError && error.status === 404 && error.type === notFound) return null;
    throw error;
  }
}

/** 412, in the /v1 vocabulary: which field failed and why, and what the API asks for instead. */
function preconditionFailed(field: string, why: string): PlatformError {
  return new PlatformError(
    412,
    'PreconditionFailed',
    // An archive takes no ?rev= (it is never changed): the advice says which writes it is for.
    `The precondition ${field} is false: ${why}; nothing was changed. A write that takes ?rev= is guarded by the revision: send it with the _rev last read, which is refused with 409 IncorrectRev if the target has changed since.`,
  );
}

const NO_TAG = 'the target carries no entity tag (only the content of a file does), so no listed tag matches';

function checkIfMatch(header: string, target: Target | null): void {
  const list = entityTagList(header);
  if (target === null) throw preconditionFailed(list.any ? 'If-Match: *' : 'If-Match', 'the target does not exist');
  if (list.any) return;
  if (target.etag === null) throw preconditionFailed('If-Match', NO_TAG);
  if (!namesStrongly(list, target.etag)) throw preconditionFailed('If-Match', `the current entity tag is ${target.etag}, which the field does not name (compared strongly)`);
}

function checkIfNoneMatch(header: string, target: Target | null): void {
  if (target === null) return;
  if (entityTagList(header).any) throw preconditionFailed('If-None-Match: *', 'the target exists');
  if (target.etag !== null && matchesEtag(header, target.etag)) throw preconditionFailed('If-None-Match', `the field names the current entity tag ${target.etag}`);
}

function checkIfUnmodifiedSince(header: string, target: Target | null): void {
  const since = httpDate(header);
  // An invalid date is ignored (§13.1.4), as is a target without a modification date (one that does not exist).
  if (since === null || target === null || target.updatedAt === null) return;
  // HTTP dates count whole seconds: a change within the second named is not after it.
  const modified = Math.floor(target.updatedAt / 1000) * 1000;
  if (modified > since) throw preconditionFailed('If-Unmodified-Since', `the target was modified at ${new Date(modified).toUTCString()}`);
}

/**
 * Throws 412 unless every precondition the request carries holds for the target `current` reads
 * (null: it does not exist). Read only when one is present, so unconditional writes cost nothing more.
 */
export async function checkPreconditions(headers: IncomingHttpHeaders, current: () => Promise<Target | null>): Promise<void> {
  const { 'if-match': ifMatch, 'if-none-match': ifNoneMatch, 'if-unmodified-since': ifUnmodifiedSince } = headers;
  if (ifMatch === undefined && ifNoneMatch === undefined && ifUnmodifiedSince === undefined) return;
  const target = await current();
  // If-Unmodified-Since is ignored when If-Match is present (§13.1.4).
  if (ifMatch !== undefined) checkIfMatch(ifMatch, target);
  else if (ifUnmodifiedSince !== undefined) checkIfUnmodifiedSince(ifUnmodifiedSince, target);
  if (ifNoneMatch !== undefined) checkIfNoneMatch(ifNoneMatch, target);
}

/**
 * The preconditions of a read of a file's content (GET, HEAD), the one read whose target carries an entity
 * tag: a false `If-Match` (or, without one, `If-Unmodified-Since`) is 412 (§13.2.2), so that a client resuming
 * a download it began before the content changed is told so. `If-None-Match` is the caller's (304 on a read).
 */
export function checkReadPreconditions(headers: IncomingHttpHeaders, target: Target): void {
  const { 'if-match': ifMatch, 'if-unmodified-since': ifUnmodifiedSince } = headers;
  if (ifMatch !== undefined) checkIfMatch(ifMatch, target);
  else if (ifUnmodifiedSince !== undefined) checkIfUnmodifiedSince(ifUnmodifiedSince, target);
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d\\d:\\d\\d:\\d\\d';
/** The three forms a recipient must accept (§5.6.7): IMF-fixdate, the obsolete RFC 850 form, asctime. */
const HTTP_DATE_FORMS = [
  new RegExp(`^${DAY}, \\d\\d ${MONTH} \\d{4} ${TIME} GMT$`),
  new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d\\d-${MONTH}-\\d\\d ${TIME} GMT$`),
  new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`),
];

/** The instant an HTTP-date names (ms), or null for anything else (a list of dates, another format). */
function httpDate(value: string): number | null {
  const text = value.trim();
  const form = HTTP_DATE_FORMS.findIndex((pattern) => pattern.test(text));
  if (form === -1) return null;
  // asctime names no zone: it is GMT, which Date.parse would otherwise take for local time.
  const instant = Date.parse(form === 2 ? `${text} GMT` : text);
  return Number.isNaN(instant) ? null : instant;
}
