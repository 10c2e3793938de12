/**
 * Archive definitions: decoding the payload into entries and checking them.
 * Unlike the reference, which stops at the first type error, every problem of
 * the payload is collected and reported together in one DecodingFailed.
 */
import { resolveIri } from '../platform/iri.js';
import { type ProjectRef, parseProjectRef, projectKey } from '../platform/refs.js';
import { type Format, FORMATS, isFormat } from '../platform/rendering.js';
import type { RevisionSelector } from '../platform/revisions.js';
import { parseFileSelf } from './file-self.js';
import { normalizeArchivePath } from './paths.js';
import { hasLoneSurrogate } from '../platform/unicode.js';

interface Revisioned {
  rev?: number;
  tag?: string;
}

/** The optional fields as the creator wrote them, echoed in the archive metadata (the defaults are not). */
export interface GivenFields {
  project?: string;
  format?: string;
  originalSource?: boolean;
}

export interface ResourceEntry extends Revisioned {
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

export const MAX_ENTRIES = 10_000;

export interface DecodeContext {
  archiveProject: ProjectRef;
  /** The base that relative `resourceId`s of entries in this project resolve against. */
  baseOf(project: ProjectRef): string;
  baseUri: string;
}

/** Entries in order, identical ones removed; `problems` lists everything wrong, empty when the payload is valid. */
export function decodeEntries(payload: Record<string, unknown>, context: DecodeContext): { entries: ArchiveEntry[]; problems: string[] } {
  const problems: string[] = [];
  const resources = payload.resources;
  if (!Array.isArray(resources) || resources.length === 0) {
    return { entries: [], problems: ["The 'resources' field must be a non-empty array of entries."] };
  }
  if (resources.length > MAX_ENTRIES) {
    return { entries: [], problems: [`An archive may hold at most ${MAX_ENTRIES} entries; ${resources.length} were given.`] };
  }
  const entries = new Map<string, ArchiveEntry>();
  resources.forEach((raw, index) => {
    const entry = decodeEntry(raw, `resources[${index}]`, context, problems);
    // Identical entries are one entry, as in the reference (which keeps a set); spelling a default out changes nothing.
    if (entry) entries.set(JSON.stringify({ ...entry, given: undefined }), entry);
  });
  return { entries: [...entries.values()], problems };
}

export function selectorOf(entry: Revisioned): RevisionSelector {
  if (entry.rev !== undefined) return { rev: entry.rev };
  if (entry.tag !== undefined) return { tag: entry.tag };
  return {};
}

/** The reference as written in messages and default names: the id with `?rev=N` or `?tag=t`. */
export function originalOf(entry: ResourceEntry | FileEntry): string {
  if (entry.rev !== undefined) return `${entry.resourceId}?rev=${entry.rev}`;
  if (entry.tag !== undefined) return `${entry.resourceId}?tag=${encodeURIComponent(entry.tag)}`;
  return entry.resourceId;
}

const TYPES = ['Resource', 'File', 'FileSelf'];

const NOT_WELL_FORMED = (field: string) => `'${field}' is not well-formed Unicode: it holds a lone surrogate.`;

function decodeEntry(raw: unknown, at: string, context: DecodeContext, problems: string[]): ArchiveEntry | null {
  const before = problems.length;
  const fail = (message: string) => problems.push(`${at}: ${message}`);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    fail('each entry must be an object.');
    return null;
  }
  const fields = raw as Record<string, unknown>;
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
  return problems.length > before
    ? null
    : { type: 'Resource', resourceId: resourceId!, project: projectKey(project!), ...(path && { path }), ...revisioned, format: format!, ...echoed };
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
    if (typeof rev !== 'number' || !Number.isSafeInteger(rev) || rev < 1) fail("'rev' must be a positive integer.");
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
