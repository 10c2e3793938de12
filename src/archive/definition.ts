/**
 * Archive definitions: decoding the payload into entries and checking them.
 * Unlike the reference, which stops at the first type error, every problem of
 * the payload is collected and reported together in one DecodingFailed: those
 * of each entry here, then the path conflicts among the entries that are valid
 * (layout.ts), each line naming the entries it concerns.
 */
import { resolveIri } from '../platform/iri.js';
import { type ProjectRef, parseProjectRef, projectKey } from '../platform/refs.js';
import { type Format, FORMATS, isFormat } from '../platform/rendering.js';
import { MAX_REVISION } from '../platform/revisions.js';
import { namesNoFileId, parseFileSelf } from './file-self.js';
import {
  MAX_FILE_NAME_LENGTH,
  defaultResourceName,
  lengthLimitProblem,
  normalizeArchivePath,
  segmentBytesProblem,
  unportableNameMessages,
} from './paths.js';
import { codePointCount, hasLoneSurrogate, shownName } from '../text/unicode.js';

interface Revisioned {
  rev?: number;
  tag?: string;
}

/** The optional fields as the creator wrote them, echoed in the archive metadata (the defaults are not). */
interface GivenFields {
  project?: string;
  format?: string;
  originalSource?: boolean;
}

interface ResourceEntry extends Revisioned {
  type: 'Resource';
  /** Absolute IRI. */
  resourceId: string;
  /** `org/project` */
  project: string;
  /** Normalised absolute path, when given. */
  path?: string;
  format: Format;
  given?: GivenFields;
}

export interface FileEntry extends Revisioned {
  type: 'File';
  resourceId: string;
  project: string;
  path?: string;
  given?: GivenFields;
}

export interface FileSelfEntry {
  type: 'FileSelf';
  value: string;
  path?: string;
}

export type ArchiveEntry = ResourceEntry | FileEntry | FileSelfEntry;

const MAX_ENTRIES = 10_000;
/** Problem lines one refusal lists: a line for each of 10,000 bad entries would be an answer far larger than the definition. */
export const MAX_REPORTED_PROBLEMS = 100;

export interface DecodeContext {
  archiveProject: ProjectRef;
  /** The base that relative `resourceId`s of entries in this project resolve against. */
  baseOf(project: ProjectRef): string;
  /**
   * Whether a FileSelf's id segment expands to an id in `project`, with its base and mappings, as its download expands
   * it; true where creation cannot know (a project the creator may not read, or none).
   */
  expandsToFileId(project: ProjectRef, segment: string): boolean;
  baseUri: string;
}

/**
 * Entries in order, identical ones removed, with the index in `resources` of each (the first, for entries
 * written more than once); `problems` lists everything wrong with the entries themselves, empty when each
 * is valid. How they fit together in one ZIP (path conflicts) is layout.ts's `layoutProblems`.
 */
export function decodeEntries(
  payload: Record<string, unknown>,
  context: DecodeContext,
): { entries: ArchiveEntry[]; indexes: number[]; problems: string[] } {
  const problems: string[] = [];
  const resources = payload.resources;
  if (!Array.isArray(resources) || resources.length === 0) {
    return { entries: [], indexes: [], problems: ["The 'resources' field must be a non-empty array of entries."] };
  }
  if (resources.length > MAX_ENTRIES) {
    return { entries: [], indexes: [], problems: [`An archive may hold at most ${MAX_ENTRIES} entries; ${resources.length} were given.`] };
  }
  // Identical entries are one entry, as in the reference (which keeps a set), named after the first in messages;
  // spelling a default out changes nothing.
  // An entry written again keeps the first one's place and index, with the fields (those echoed too) written last.
  const entries: ArchiveEntry[] = [];
  const indexes: number[] = [];
  const positionOf = new Map<string, number>();
  resources.forEach((raw, index) => {
    const entry = decodeEntry(raw, index, context, problems);
    if (!entry) return;
    const key = sameEntryKey(entry);
    const position = positionOf.get(key);
    if (position !== undefined) {
      entries[position] = entry;
      return;
    }
    positionOf.set(key, entries.length);
    entries.push(entry);
    indexes.push(index);
  });
  return { entries, indexes, problems };
}

/**
 * What two entries share when they are one: every field but those kept only to be echoed, with defaults filled in
 * (decodeEntry does that for `project` and `format`), and the path, `path` when given (a file's default name spelt out,
 * layout.ts), none when it is a resource's default name. A file's default name follows the file's current name, known
 * only once the file is looked up.
 */
export function sameEntryKey(entry: ArchiveEntry, path = entry.path): string {
  // The fields in one string (JSON.stringify of a copy of the entry was most of decoding 10,000 entries), each
  // variable one after its length so that no two entries share a key by where their fields start and end. `rev`
  // and `tag` keep their own places: `rev` 1 and `tag` '1' are two entries.
  const named = path === undefined || (entry.type === 'Resource' && path === `/${defaultResourceName(entry.project, entry.format, originalOf(entry))}`) ? undefined : path;
  if (entry.type === 'FileSelf') return `FileSelf ${lengthPrefixed(entry.value)} ${lengthPrefixed(named)}`;
  const format = entry.type === 'Resource' ? entry.format : undefined;
  return `${entry.type} ${lengthPrefixed(entry.resourceId)} ${lengthPrefixed(entry.project)} ${entry.rev ?? '-'} ${lengthPrefixed(entry.tag)} ${format ?? '-'} ${lengthPrefixed(named)}`;
}

/** `text` after its length, `-` when absent: fields so written, one after another, can be told apart. */
function lengthPrefixed(text: string | undefined): string {
  return text === undefined ? '-' : `${text.length}:${text}`;
}

/** At most MAX_REPORTED_PROBLEMS lines, and a last one counting the rest. */
export function boundedProblems(problems: string[]): string[] {
  if (problems.length <= MAX_REPORTED_PROBLEMS) return problems;
  return [...problems.slice(0, MAX_REPORTED_PROBLEMS), `… and ${problems.length - MAX_REPORTED_PROBLEMS} more problems.`];
}

/** The reference as written in messages and default names: the id with `?rev=N` or `?tag=t`. */
export function originalOf(entry: ResourceEntry | FileEntry): string {
  if (entry.rev !== undefined) return `${entry.resourceId}?rev=${entry.rev}`;
  if (entry.tag !== undefined) return `${entry.resourceId}?tag=${encodeURIComponent(entry.tag)}`;
  return entry.resourceId;
}

const TYPES = ['Resource', 'File', 'FileSelf'];

/**
 * The fields of every entry type. A field of another type is ignored, as in the reference (`format`
 * on a File); one of no type is a mistake (`pth`), which the reference would silently ignore too.
 */
const ENTRY_FIELDS = new Set(['@type', 'resourceId', 'value', 'project', 'path', 'rev', 'tag', 'format', 'originalSource']);
/** JSON-LD keywords an entry, a node object, may carry; payloads are read as plain JSON, so they change nothing. */
const JSON_LD_KEYWORDS = new Set(['@context', '@id', '@index']);

const NOT_WELL_FORMED = (field: string) => `'${field}' is not well-formed Unicode: it holds a lone surrogate.`;

function decodeEntry(raw: unknown, index: number, context: DecodeContext, problems: string[]): ArchiveEntry | null {
  const before = problems.length;
  const fail = (message: string) => problems.push(`resources[${index}]: ${message}`);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    fail('each entry must be an object.');
    return null;
  }
  const fields = raw as Record<string, unknown>;
  for (const field of Object.keys(fields)) {
    if (!ENTRY_FIELDS.has(field) && !JSON_LD_KEYWORDS.has(field)) fail(`unknown field '${shownName(field)}'.`);
  }
  const type = fields['@type'];
  if (typeof type !== 'string' || !TYPES.includes(type)) {
    fail(`'@type' must be one of ${TYPES.join(', ')}.`);
    return null;
  }
  const path = decodePath(fields.path, fail);
  if (type === 'FileSelf') {
    const value = fields.value;
    if (typeof value !== 'string') fail("'value' must be the '_self' of a file, as a string.");
    else if (hasLoneSurrogate(value)) fail(NOT_WELL_FORMED('value'));
    else {
      const parsed = parseFileSelf(value, context.baseUri);
      if ('problem' in parsed) fail(parsed.problem);
      // Past the checks any project's base passes, an id may grow too long once this project's base is added.
      else if (!context.expandsToFileId(parsed.project, parsed.idSegment)) fail(namesNoFileId(value));
    }
    return problems.length > before ? null : { type, value: value as string, ...(path && { path }) };
  }

  const project = decodeProject(fields.project, context.archiveProject, fail);
  const resourceId = decodeResourceId(fields.resourceId, project, context, fail);
  const revisioned = decodeRevision(fields, fail);
  const given: GivenFields = {
    ...(typeof fields.project === 'string' && { project: fields.project }),
    ...(type === 'Resource' && typeof fields.format === 'string' && { format: fields.format }),
    ...(type === 'Resource' && typeof fields.originalSource === 'boolean' && { originalSource: fields.originalSource }),
  };
  const echoed = Object.keys(given).length > 0 ? { given } : {};
  if (type === 'File') {
    return problems.length > before ? null : { type, resourceId: resourceId!, project: projectKey(project!), ...(path && { path }), ...revisioned, ...echoed };
  }
  const format = decodeFormat(fields, fail);
  if (problems.length > before) return null;
  const entry: ResourceEntry = { type: 'Resource', resourceId: resourceId!, project: projectKey(project!), ...(path && { path }), ...revisioned, format: format!, ...echoed };
  if (path === undefined) checkDefaultName(entry, fail);
  return problems.length > before ? null : entry;
}

/** A resource without a path is named after its id, which may make a name too long or one some system cannot create. */
function checkDefaultName(entry: ResourceEntry, fail: (message: string) => void): void {
  const original = originalOf(entry);
  const name = defaultResourceName(entry.project, entry.format, original);
  // Its file name is its last segment: flatEncode leaves no '/' in an id.
  if (codePointCount(name.slice(name.lastIndexOf('/') + 1)) > MAX_FILE_NAME_LENGTH) {
    fail(`The resource ids '${original}' generate a file name exceeding ${MAX_FILE_NAME_LENGTH} characters, please define a path for each of them.`);
  }
  for (const message of unportableNameMessages([name])) fail(message);
}

function decodePath(raw: unknown, fail: (message: string) => void): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') {
    fail("'path' must be a string.");
    return undefined;
  }
  const checked = normalizeArchivePath(raw);
  if ('problem' in checked) {
    fail(checked.problem);
    return undefined;
  }
  const overLimits = lengthLimitProblem(checked.path);
  if (overLimits !== null) {
    fail(overLimits);
    return undefined;
  }
  const overlong = segmentBytesProblem(checked.path);
  if (overlong !== null) {
    fail(overlong);
    return undefined;
  }
  return checked.path;
}

function decodeProject(raw: unknown, fallback: ProjectRef, fail: (message: string) => void): ProjectRef | undefined {
  if (raw === undefined) return fallback;
  const project = typeof raw === 'string' ? parseProjectRef(raw) : null;
  if (project === null) fail(`'project' must be of the form 'org/project', got ${JSON.stringify(raw)}.`);
  return project ?? undefined;
}

function decodeResourceId(
  raw: unknown,
  project: ProjectRef | undefined,
  context: DecodeContext,
  fail: (message: string) => void,
): string | undefined {
  if (typeof raw !== 'string' || raw === '') {
    fail("'resourceId' must be a non-empty string (an IRI, or relative to the project base).");
    return undefined;
  }
  if (hasLoneSurrogate(raw)) {
    fail(NOT_WELL_FORMED('resourceId'));
    return undefined;
  }
  if (project === undefined) return undefined;
  const resolved = resolveIri(raw, context.baseOf(project));
  if (resolved === null) fail(`'resourceId' '${raw}' is not a valid IRI.`);
  return resolved ?? undefined;
}

function decodeRevision(fields: Record<string, unknown>, fail: (message: string) => void): Revisioned {
  const { rev, tag } = fields;
  if (rev !== undefined && tag !== undefined) {
    fail("An archive resource reference cannot use both 'rev' and 'tag' fields.");
    return {};
  }
  if (rev !== undefined) {
    // Bounded as every /v1 revision is (a FileSelf link's too): a larger one names no revision, so its download could only fail.
    if (typeof rev !== 'number' || !Number.isSafeInteger(rev) || rev < 1 || rev > MAX_REVISION) fail(`'rev' must be a positive integer, at most ${MAX_REVISION}.`);
    else return { rev };
  }
  if (tag !== undefined) {
    if (typeof tag !== 'string' || tag === '') fail("'tag' must be a non-empty string.");
    else if (hasLoneSurrogate(tag)) fail(NOT_WELL_FORMED('tag'));
    else return { tag };
  }
  return {};
}

function decodeFormat(fields: Record<string, unknown>, fail: (message: string) => void): Format | undefined {
  const { originalSource, format } = fields;
  if (originalSource !== undefined && format !== undefined) {
    fail("An archive resource reference cannot use both 'originalSource' and 'format' fields.");
    return undefined;
  }
  if (originalSource !== undefined) {
    if (typeof originalSource !== 'boolean') fail("'originalSource' must be a boolean.");
    return originalSource ? 'source' : 'compacted';
  }
  if (format === undefined) return 'compacted';
  if (typeof format !== 'string' || !isFormat(format)) {
    fail(`'format' must be one of ${FORMATS.join(', ')}.`);
    return undefined;
  }
  return format;
}
