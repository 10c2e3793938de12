/**
 * Everything a download needs, settled before the first byte is sent:
 * FileSelf entries parsed, `resources/read` checked for the caller on every
 * referenced project, every entry looked up and pinned to one revision (so
 * later updates cannot change what is streamed), and the final names checked
 * for conflicts. Missing entries are 404 unless `ignoreNotFound` skips them.
 * Reading a stored resource decodes its metadata only (its payload stays JSON
 * text until a render thread parses it): each revision is read once while
 * resolving, and the event loop runs between reads. A resolved entry keeps the
 * revision's metadata and its payload's size, not the payload: a download
 * lasts as long as its client reads, and a slow one would otherwise hold every
 * payload of its archive meanwhile (the writer reads each again, by revision).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AclService } from '../platform/acls.js';
import { PlatformError } from '../platform/errors.js';
import type { Identity } from '../platform/identities.js';
import { type FileService, asFileRevision } from '../platform/files.js';
import type { ProjectService, ProjectState } from '../platform/projects.js';
import { type ProjectRef, parseProjectRef, projectAddress, projectKey } from '../platform/refs.js';
import type { Format } from '../platform/rendering.js';
import type { ResourceService } from '../platform/resources.js';
import { type EntityState, type FileAttributes, type RevisionSelector, selectorOf } from '../platform/revisions.js';
import { storedJsonOf, withoutSource } from '../platform/stored-json.js';
import type { FileFinder, StoredArchive } from './archives.js';
import { type ArchiveEntry, originalOf } from './definition.js';
import { namesNoFileId, parseFileSelf } from './file-self.js';
import { entryName } from './layout.js';
import { type Settled, inOrderAhead } from './lookahead.js';
import { conflictMessages, findPathConflicts, overlongNameMessages, unportableNameMessages } from './paths.js';

export interface ResolveDeps {
  baseUri: string;
  projects: ProjectService;
  acls: AclService;
  /** A download reads through `ResourceService.heldLookup`'s lookup (download.ts). */
  resources: Pick<ResourceService, 'lookup' | 'expandId'>;
  files: FileService;
}

/** A revision an entry is pinned to: its metadata, and the size of its payload as JSON, the payload itself left out. */
type PinnedState = Omit<EntityState, 'source'> & { sourceBytes: number };

interface Resolved {
  /** Name inside the ZIP. */
  name: string;
  project: ProjectState;
}

/** A resource (or a file's metadata), serialised in `format`. */
export interface ResolvedResource extends Resolved {
  kind: 'resource';
  state: PinnedState;
  format: Format;
}

/** A file's content. */
export interface ResolvedFile extends Resolved {
  kind: 'file';
  state: PinnedState & { file: FileAttributes };
}

export type ResolvedEntry = ResolvedResource | ResolvedFile;

/** What an entry points at, once FileSelf values are parsed. */
interface Target {
  entry: ArchiveEntry;
  project: ProjectRef;
  /** A full id, or a URL segment to expand with the project's mappings (FileSelf). */
  id: { iri: string } | { segment: string };
  selector: RevisionSelector;
  /** How the entry is named in messages. */
  original: string;
}

/** How long reads go on before the event loop gets a turn. */
const TURN_MS = 10;

/**
 * `admit` sees each entry as soon as it is resolved and may refuse it by throwing: bounds on what the
 * resolved entries hold are checked as they are read, not once every payload is in memory.
 */
export async function resolveForDownload(
  archive: StoredArchive,
  identity: Identity,
  ignoreNotFound: boolean,
  deps: ResolveDeps,
  admit: (entry: ResolvedEntry) => void,
): Promise<ResolvedEntry[]> {
  const targets = archive.entries.map((entry) => {
    const target = targetOf(entry, deps.baseUri);
    if ('problem' in target) throw new PlatformError(400, 'InvalidFileSelf', target.problem);
    return target;
  });
  for (const address of new Set(targets.map((t) => projectAddress(t.project)))) deps.acls.require(identity, 'resources/read', address);

  const resolved: ResolvedEntry[] = [];
  // Entries of one revision in several formats share one read: each revision is looked up once, a few ahead
  // of the entry handled (lookahead.ts), and the entries are handled in order as they were one read at a time.
  const keys = targets.map((target) => JSON.stringify([projectKey(target.project), target.entry.type === 'Resource', target.id, target.selector]));
  const seen = new Set<string>();
  const firstOfEachRevision = targets.filter((_, position) => {
    const isFirst = !seen.has(keys[position]!);
    seen.add(keys[position]!);
    return isFirst;
  });
  const projectOf = projectReader(deps);
  const lookups = inOrderAhead(firstOfEachRevision, async (target) => {
    const { state, project } = await lookup(target, deps, projectOf);
    return { state: pinned(state), project };
  });
  const read = new Map<string, Settled<Target, { state: PinnedState; project: ProjectState }>>();
  let turnStarted = performance.now();
  for (const [position, target] of targets.entries()) {
    const key = keys[position]!;
    let found: { state: PinnedState; project: ProjectState };
    try {
      let settled = read.get(key);
      if (!settled) {
        if (performance.now() - turnStarted > TURN_MS) {
          await nextTurn();
          turnStarted = performance.now();
        }
        settled = (await lookups.next()).value as Settled<Target, { state: PinnedState; project: ProjectState }>;
        read.set(key, settled);
      }
      if ('error' in settled) throw settled.error;
      found = settled.value;
    } catch (error) {
      // A project marked for deletion is on its way out: skipped like a missing entry when asked to, reported as itself otherwise.
      const gone = error instanceof PlatformError && (error.status === 404 || error.type === 'ProjectIsMarkedForDeletion');
      if (!gone) throw error;
      if (ignoreNotFound) continue;
      if (error.status !== 404) throw error;
      // In the archive's own words, keeping what the lookup could tell beyond "not found" (an article's full @id).
      throw new PlatformError(404, 'ResourceNotFound', `The resource '${target.original}' was not found in project '${projectKey(target.project)}'.`, error.details);
    }
    if (found.state.kind === 'file') deps.files.assertContent(asFileRevision(found.state));
    const name = nameOf(target, found.state);
    const entry: ResolvedEntry =
      target.entry.type === 'Resource'
        ? { ...found, name, kind: 'resource', format: target.entry.format }
        : { ...found, name, kind: 'file', state: asFileRevision(found.state) };
    admit(entry);
    resolved.push(entry);
  }

  // Default names of files follow their current names, which may have changed since creation (or could not be looked up then).
  const names = resolved.map((r) => r.name);
  const conflicts = [...unportableNameMessages(names), ...overlongNameMessages(names), ...conflictMessages(findPathConflicts(names))];
  if (conflicts.length > 0) throw new PlatformError(409, 'ArchivePathConflict', conflicts.join('\n'));
  return resolved.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * For checks at creation: the file behind a File/FileSelf entry, when it exists and the creator may read it.
 * One finder per creation: it reads each project once.
 */
export function creationFileFinder(deps: ResolveDeps): FileFinder {
  const projectOf = projectReader(deps);
  return async (entry, identity) => {
    const target = targetOf(entry, deps.baseUri);
    if ('problem' in target || !deps.acls.has(identity, 'resources/read', projectAddress(target.project))) return null;
    try {
      const { state } = await lookup(target, deps, projectOf);
      return { project: projectKey(target.project), filename: asFileRevision(state).file.filename };
    } catch (error) {
      if (error instanceof PlatformError) return null;
      throw error;
    }
  };
}

function targetOf(entry: ArchiveEntry, baseUri: string): Target | { problem: string } {
  if (entry.type === 'FileSelf') {
    const parsed = parseFileSelf(entry.value, baseUri);
    if ('problem' in parsed) return parsed;
    return { entry, project: parsed.project, id: { segment: parsed.idSegment }, selector: parsed.selector, original: entry.value };
  }
  return { entry, project: parseProjectRef(entry.project)!, id: { iri: entry.resourceId }, selector: selectorOf(entry), original: originalOf(entry) };
}

/**
 * Reads each project once for one creation or download, however many entries name it (a read of the
 * store per entry, on PostgreSQL a round trip), and gives every entry of it the same answer. A promise
 * is kept, so lookups running at once share one read.
 */
function projectReader(deps: ResolveDeps): ProjectReader {
  const read = new Map<string, Promise<ProjectState>>();
  return (ref) => {
    const key = projectKey(ref);
    let project = read.get(key);
    if (!project) {
      project = deps.projects.forRead(ref);
      read.set(key, project);
    }
    return project;
  };
}

type ProjectReader = (ref: ProjectRef) => Promise<ProjectState>;

async function lookup(target: Target, deps: ResolveDeps, projectOf: ProjectReader): Promise<{ state: EntityState; project: ProjectState }> {
  const project = await projectOf(target.project);
  const id = 'iri' in target.id ? target.id.iri : expandFileSelfId(project, target, deps);
  const state = await (
    target.entry.type === 'Resource' ? deps.resources.lookup(project, id, target.selector) : deps.files.fetchById(project, id, target.selector));
  return { state, project };
}

/** A FileSelf whose id segment cannot be expanded is an invalid FileSelf, not a bad request id. */
function expandFileSelfId(project: ProjectState, target: Target, deps: ResolveDeps): string {
  try {
    return deps.resources.expandId(project, (target.id as { segment: string }).segment);
  } catch {
    throw new PlatformError(400, 'InvalidFileSelf', namesNoFileId(target.original));
  }
}

/** The revision without its payload; measured first (for resources written before their size was recorded, and articles). */
function pinned(state: EntityState): PinnedState {
  return { ...withoutSource(state), sourceBytes: state.sourceBytes ?? Buffer.byteLength(storedJsonOf(state) ?? JSON.stringify(state.source)) };
}

function nameOf(target: Target, state: PinnedState): string {
  const file = state.file && { project: projectKey(target.project), filename: state.file.filename };
  return entryName(target.entry, file)!;
}
