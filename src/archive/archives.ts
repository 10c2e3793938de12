/**
 * Archive definitions: created by POST or PUT, read back as metadata, and
 * erased once their time to live is over. Expiry is fixed at creation; an
 * expired archive answers 404 at once, and the purge job reclaims its record.
 * Creating or reading an archive needs `resources/read` on its project.
 */
import { randomUUID } from 'node:crypto';
import type { AclService } from '../platform/acls.js';
import { type Subject, auditFields } from '../platform/audit.js';
import { ARCHIVE_SCHEMA, ARCHIVES_CONTEXT, ARCHIVES_METADATA_CONTEXT, METADATA_CONTEXT } from '../platform/contexts.js';
import { PlatformError, rejections } from '../platform/errors.js';
import { type Identity, principalKey } from '../platform/identities.js';
import { contextProblem } from '../platform/context-bound.js';
import { depthProblem } from '../platform/json-depth.js';
import { encodeIdSegment, expandIdSegment, resolveIri } from '../platform/iri.js';
import type { JsonObject } from '../platform/jsonld.js';
import { type ProjectService, type ProjectState, defaultBase } from '../platform/projects.js';
import { selectorOf } from '../platform/revisions.js';
import type { ResourceService } from '../platform/resources.js';
import { type ProjectRef, projectAddress, projectKey, refOf } from '../platform/refs.js';
import type { Platform } from '../platform/index.js';
import type { Renderer } from '../platform/renderer.js';
import type { Entry, Store, Table } from '../platform/store/store.js';
import { DEFAULT_RENDER_BOUNDS, type Download, type RenderBounds, prepareDownload } from './download.js';
import { renderCallerOf, type RenderCaller } from '../platform/render-queue.js';
import { ArchiveLedger, type HoldKey, definitionBytes } from './quota.js';
import { type ResolveDeps, creationFileFinder } from './resolve.js';
import { type ArchiveEntry, type FileEntry, type FileSelfEntry, boundedProblems, decodeEntries } from './definition.js';
import { layoutProblems, mergeSpeltOutFileDefaults } from './layout.js';
import { inOrderAhead } from './lookahead.js';
import { hasLoneSurrogate } from '../text/unicode.js';

export interface StoredArchive {
  id: string;
  /** `org/project` */
  project: string;
  entries: ArchiveEntry[];
  createdAt: number;
  createdBy: Subject;
  expiresAt: number;
  /**
   * Whom the quota ledger counts the archive against (holderOf). Absent from archives stored by earlier
   * versions, which counted each against its creator's principal, every anonymous one against `anonymous`.
   */
  heldBy?: string;
}

/** Finds the file behind an entry, if the creator may read it; used to check default names at creation. */
export type FileFinder = (entry: FileEntry | FileSelfEntry, identity: Identity) => Promise<{ project: string; filename: string } | null>;

interface ArchiveOptions {
  /** Lifetime of an archive, from its creation. */
  ttlMs: number;
  /** Live archives one caller may hold. */
  maxPerCaller: number;
  /** Total size of the stored definitions, in bytes. */
  maxStoreBytes: number;
  /** What one download may render; default DEFAULT_RENDER_BOUNDS. */
  renderBounds?: RenderBounds;
}

/**
 * Whom the quota counts a new archive against: a user by its principal key; an anonymous caller by its
 * client address (`client`, a clientKey: an IPv6 address by its /64), since every anonymous caller is the
 * same principal and one of them would otherwise use up the bound of all. Without an address (a creation
 * from inside the server), anonymous creations share the principal's key, as all did before.
 */
function holderOf(identity: Identity, client: string | undefined): string {
  const principal = principalKey(identity.subject);
  return identity.subject.type === 'Anonymous' && client !== undefined ? `${principal}@${client}` : principal;
}

/** How the quota ledger names a stored archive; one an earlier version stored is counted against its creator's principal. */
const holdKeyOf = (archive: StoredArchive): HoldKey => ({ caller: archive.heldBy ?? principalKey(archive.createdBy), project: archive.project, id: archive.id });

/**
 * Every key the ledger may count a stored archive under: holdKeyOf's, and its creator's principal key,
 * under which a server of an earlier version sharing the store counts it again when it refills the ledger.
 */
function holdKeysOf(archive: StoredArchive): HoldKey[] {
  const held = holdKeyOf(archive);
  const byPrincipal = { ...held, caller: principalKey(archive.createdBy) };
  return held.caller === byPrincipal.caller ? [held] : [held, byPrincipal];
}

/** Stored archives read at a time when all are gone through (each up to 1 MiB of definition). */
export const ARCHIVES_PER_READ = 64;
/** Expired archives removed per write of the purge. */
const PURGE_BATCH = 100;

export class ArchiveService {
  private readonly db: Table<StoredArchive>;
  private readonly store: Store;
  private readonly projects: ProjectService;
  private readonly acls: AclService;
  private readonly baseUri: string;
  private readonly clock: () => number;
  private readonly resolveDeps: ResolveDeps & { resources: ResourceService };
  private readonly ttlMs: number;
  private readonly quota: ArchiveLedger;
  private readonly renderer: Renderer;
  private readonly renderBounds: RenderBounds;

  /** Opens the service, filling the quota's ledger from the stored archives if the store has none yet. */
  static async open(platform: Platform, options: ArchiveOptions): Promise<ArchiveService> {
    const service = new ArchiveService(platform, options);
    const filled = await service.quota.ensureFilled(() => service.db.count(), async function* () {
      for await (const { value } of service.storedArchives()) {
        yield { ...holdKeyOf(value), bytes: definitionBytes(value.entries), expiresAt: value.expiresAt };
      }
    });
    // Said, since it reads every stored definition and holds the ledger's turn meanwhile.
    if (filled !== null) platform.logger.info(`archive quota ledger filled from ${filled} stored archive(s)`);
    return service;
  }

  /**
   * Every stored archive, read ARCHIVES_PER_READ at a time: the definitions may add up to
   * --max-archive-store-bytes (1 GiB by default), several times that once parsed, far more than
   * one read should hold.
   */
  private async *storedArchives(): AsyncGenerator<Entry<StoredArchive>> {
    for (let offset = 0; ; offset += ARCHIVES_PER_READ) {
      const page = await this.db.range(undefined, { offset, limit: ARCHIVES_PER_READ });
      yield* page;
      if (page.length < ARCHIVES_PER_READ) return;
    }
  }

  private constructor(platform: Platform, options: ArchiveOptions) {
    ({ store: this.store, projects: this.projects, acls: this.acls, baseUri: this.baseUri, clock: this.clock } = platform);
    this.resolveDeps = { baseUri: platform.baseUri, projects: platform.projects, acls: platform.acls, resources: platform.resources, files: platform.files };
    this.ttlMs = options.ttlMs;
    this.renderer = platform.renderer;
    this.renderBounds = options.renderBounds ?? DEFAULT_RENDER_BOUNDS;
    this.db = this.store.table<StoredArchive>('archives');
    this.quota = new ArchiveLedger(this.store, options.maxPerCaller, options.maxStoreBytes);
  }

  /**
   * Everything about a download is settled here, before the first byte: the archive is looked
   * up for the caller, who needs `resources/read` on every referenced project, and every entry
   * is resolved. The ZIP is produced later, as the client reads.
   */
  async download(ref: ProjectRef, idSegment: string, identity: Identity, ignoreNotFound: boolean, client?: string): Promise<Download> {
    const archive = await this.fetch(ref, idSegment, identity);
    return prepareDownload(archive, identity, ignoreNotFound, this.resolveDeps, this.renderer, this.renderBounds, renderCallerOf(identity, client));
  }

  /**
   * Stores a new archive. Once `signal` aborts (the client has gone), a creation still waiting for the
   * ledger's turn gives up its place and stores nothing, rejecting with the signal's reason: nobody would
   * learn of the archive, which would count against its caller until it expired. `client`: the address
   * key (clientKey) of the request's client, which an anonymous caller's archives count against.
   */
  async create(
    ref: ProjectRef,
    idSegment: string | undefined,
    payload: JsonObject,
    identity: Identity,
    signal?: AbortSignal,
    client?: string,
  ): Promise<StoredArchive> {
    const project = await this.readableProject(ref, identity);
    const id = this.idFor(project, idSegment, payload);
    const shapeProblem = depthProblem(payload) ?? contextProblem(payload);
    if (shapeProblem !== null) throw rejections.decodingFailed([shapeProblem]);
    await checkContext(payload, id, project, this.renderer, renderCallerOf(identity, client));
    const projectsByKey = new Map((await this.projects.all()).map((p) => [projectKey(refOf(p)), p]));
    // A project's own base and mappings only for whoever may read it: neither the stored ids nor a refusal may reveal that an unreadable project exists, nor its base.
    const readable = (entryProject: ProjectRef) =>
      this.acls.has(identity, 'resources/read', projectAddress(entryProject)) ? projectsByKey.get(projectKey(entryProject)) : undefined;
    const decoded = decodeEntries(payload, {
      archiveProject: ref,
      baseOf: (entryProject) => readable(entryProject)?.base ?? defaultBase(this.baseUri, entryProject),
      expandsToFileId: (entryProject, segment) => {
        const project = readable(entryProject);
        return project === undefined || expandIdSegment(segment, project.base, this.projects.effectiveMappings(project)) !== null;
      },
      baseUri: this.baseUri,
    });
    // The valid entries' conflicts come in the same answer as the others' problems: one round trip shows all.
    const files = new Map<ArchiveEntry, { project: string; filename: string } | null>();
    const unnamedFiles = decoded.entries.filter((entry): entry is FileEntry | FileSelfEntry => entry.type !== 'Resource' && entry.path === undefined);
    const findFile = creationFileFinder(this.resolveDeps);
    for await (const found of inOrderAhead(unnamedFiles, (entry) => findFile(entry, identity))) {
      if ('error' in found) throw found.error;
      files.set(found.item, found.value);
    }
    const fileOf = (entry: FileEntry | FileSelfEntry) => files.get(entry) ?? null;
    const { entries, indexes } = mergeSpeltOutFileDefaults(decoded.entries, decoded.indexes, fileOf);
    const problems = [...decoded.problems, ...layoutProblems(entries, indexes, fileOf)];
    if (problems.length > 0) throw rejections.decodingFailed(boundedProblems(problems));
    const key = projectKey(ref);
    const bytes = definitionBytes(entries);
    return this.quota.write(async () => {
      const existing = await this.db.get([key, id]);
      if (existing && !this.isExpired(existing)) throw rejections.resourceAlreadyExists(id, key);
      if (existing) await this.releaseHold(existing);
      const now = this.clock();
      const archive: StoredArchive = {
        id,
        project: key,
        entries,
        createdAt: now,
        createdBy: identity.subject,
        expiresAt: now + this.ttlMs,
        heldBy: holderOf(identity, client),
      };
      // Counted in the same write as it is stored: a concurrent creation, on this server or another, sees it.
      await this.quota.admit(holdKeyOf(archive), { bytes, expiresAt: archive.expiresAt }, now);
      await this.db.put([key, id], archive);
      return archive;
    }, signal);
  }

  /**
   * The archive, for a caller who may read it, who is one who may create it (both need `resources/read`):
   * what a creation's preconditions look at too.
   */
  async fetch(ref: ProjectRef, idSegment: string, identity: Identity): Promise<StoredArchive> {
    const project = await this.readableProject(ref, identity);
    const id = expandArchiveId(idSegment, project, this.projects);
    const archive = await this.db.get([projectKey(ref), id]);
    if (!archive || this.isExpired(archive)) {
      // The reference serialises ArchiveNotFound with this @type.
      throw new PlatformError(404, 'ResourceNotFound', `Archive '${id}' not found in project '${projectKey(ref)}'.`);
    }
    return archive;
  }

  /**
   * Removes expired archives; returns how many. They are found first, then removed PURGE_BATCH to a
   * write in the ledger's turn, so creations wait for one batch at most; an archive replaced since it
   * was found, or removed by another server purging at the same time, is left to them.
   */
  async purgeExpired(): Promise<number> {
    const now = this.clock();
    const expired = await this.quota.expired(now);
    let removed = 0;
    for (let start = 0; start < expired.length; start += PURGE_BATCH) {
      removed += await this.quota.write(async () => {
        let released = 0;
        for (const hold of expired.slice(start, start + PURGE_BATCH)) {
          if (!(await this.quota.release(hold, now))) continue;
          await this.db.remove([hold.project, hold.id]);
          released++;
        }
        return released;
      });
    }
    return removed;
  }

  selfOf(archive: StoredArchive): string {
    return `${this.baseUri}/v1/archives/${archive.project}/${encodeIdSegment(archive.id)}`;
  }

  /** The metadata of an archive; with its definition (`resources`) when fetched, without when just created. */
  metadata(archive: StoredArchive, withResources: boolean): JsonObject {
    const audit = auditFields({ createdAt: archive.createdAt, createdBy: archive.createdBy, updatedAt: archive.createdAt, updatedBy: archive.createdBy }, this.baseUri);
    return {
      '@context': [withResources ? ARCHIVES_CONTEXT : ARCHIVES_METADATA_CONTEXT, METADATA_CONTEXT],
      '@id': archive.id,
      '@type': 'Archive',
      ...(withResources && { resources: archive.entries.map(entryJson) }),
      _self: this.selfOf(archive),
      _constrainedBy: ARCHIVE_SCHEMA,
      _project: archive.project,
      _rev: 1,
      _deprecated: false,
      ...audit,
      _expiresInSeconds: Math.max(0, Math.ceil((archive.expiresAt - this.clock()) / 1000)),
    };
  }

  /** Inside a ledger write: stops counting a stored archive, under whichever of its keys the ledger holds it. */
  private async releaseHold(archive: StoredArchive): Promise<void> {
    for (const key of holdKeysOf(archive)) if (await this.quota.release(key)) return;
  }

  /** The project an archive is created in, for a caller who may create one there: what a POST's preconditions look at. */
  projectForCreator(ref: ProjectRef, identity: Identity): Promise<ProjectState> {
    return this.readableProject(ref, identity);
  }

  /**
   * Throws the 403 of a creation unless the caller holds `resources/read` on the project. The creation checks it
   * itself; the HTTP layer checks it also before reading its body, so that a refused creation costs no upload.
   */
  requireCreator(ref: ProjectRef, identity: Identity): void {
    this.acls.require(identity, 'resources/read', projectAddress(ref));
  }

  private isExpired(archive: StoredArchive): boolean {
    return archive.expiresAt <= this.clock();
  }

  /** As in the reference, the ACL check comes first: no permission means 403 even for a missing project. */
  private readableProject(ref: ProjectRef, identity: Identity): Promise<ProjectState> {
    this.acls.require(identity, 'resources/read', projectAddress(ref));
    return this.projects.forRead(ref);
  }

  private idFor(project: ProjectState, idSegment: string | undefined, payload: JsonObject): string {
    const fromPath = idSegment === undefined ? undefined : expandArchiveId(idSegment, project, this.projects);
    const raw = payload['@id'];
    if (raw === undefined) return fromPath ?? project.base + randomUUID();
    const fromPayload = typeof raw === 'string' && !hasLoneSurrogate(raw) ? resolveIri(raw, project.base) : null;
    if (fromPayload === null) throw invalidArchiveId(String(raw));
    if (fromPath !== undefined && fromPath !== fromPayload) throw rejections.unexpectedId(idSegment!, raw as string, { fromPath, fromPayload });
    return fromPayload;
  }
}

function expandArchiveId(segment: string, project: ProjectState, projects: ProjectService): string {
  const id = expandIdSegment(segment, project.base, projects.effectiveMappings(project));
  if (id === null) throw invalidArchiveId(segment);
  return id;
}

function invalidArchiveId(id: string): PlatformError {
  return new PlatformError(400, 'InvalidArchiveId', `Archive identifier '${id}' cannot be expanded to an Iri.`);
}

/**
 * A client `@context` must be processable (bundled or inline); the archives context is appended to it, as in the reference.
 * Processed on a render thread like every other payload: within the context bound it may still take 0.2 s.
 */
async function checkContext(payload: JsonObject, id: string, project: ProjectState, renderer: Renderer, caller: RenderCaller): Promise<void> {
  const context = payload['@context'];
  if (context === undefined) return;
  const source = { '@context': [...(Array.isArray(context) ? context : [context]), ARCHIVES_CONTEXT], resources: [] };
  await renderer.json({ id, source, metadata: {}, base: project.base, vocab: project.vocab }, 'expanded', caller);
}

/** An entry as shown in the archive metadata: what the creator wrote, with `resourceId` resolved; defaults left out. */
function entryJson(entry: ArchiveEntry): JsonObject {
  if (entry.type === 'FileSelf') return { '@type': 'FileSelf', value: entry.value, ...(entry.path && { path: entry.path }) };
  return {
    '@type': entry.type,
    resourceId: entry.resourceId,
    ...(entry.given?.project !== undefined && { project: entry.given.project }),
    ...(entry.path && { path: entry.path }),
    ...selectorOf(entry),
    ...(entry.given?.format !== undefined && { format: entry.given.format }),
    ...(entry.given?.originalSource !== undefined && { originalSource: entry.given.originalSource }),
  };
}
