/**
 * Resources: JSON-LD payloads with revisions, tags and deprecation, in a
 * project. Ids come from the URL segment, the payload `@id` (or an alias of
 * it) or the project base plus a UUID; payloads are checked by expanding them at write time.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { AclService } from './acls.js';
import { PlatformError, rejections } from './errors.js';
import { type Identity, printableName } from './identities.js';
import { contextProblem } from './context-bound.js';
import { depthProblem } from './json-depth.js';
import { surveyOf } from './payload-survey.js';
import { loneSurrogatePointer } from '../text/unicode.js';
import { expandIdSegment, expandedLengthProblem, expandMappedPrefix, forbiddenIriCharacter, isRelativeIri, mappedExpansion, resolveIri, resolvedLengthProblem } from './iri.js';
import type { JsonObject } from './jsonld.js';
import { type FilterRequest, hasFilters, listingPredicate } from './listing-filter.js';
import type { LiteratureResources } from './literature.js';
import type { ProjectService, ProjectState } from './projects.js';
import { type ProjectRef, projectAddress, projectKey, refOf } from './refs.js';
import { type RenderCaller, renderCallerOf } from './render-queue.js';
import type { Renderer } from './renderer.js';
import { slicedJson } from './render-transfer.js';
import { rememberPayloadJson } from './stored-json.js';
import { idKeys } from './rendering.js';
import type { EntityState, EntityWrite, ListedState, Processing, RevisionSelector, RevisionStore } from './revisions.js';

export class ResourceService {
  constructor(
    private readonly revisions: RevisionStore,
    private readonly projects: ProjectService,
    private readonly acls: AclService,
    private readonly literature: LiteratureResources,
    private readonly renderer: Renderer,
  ) {}

  /** Expands an id from a URL segment with the project's mappings and base. */
  expandId(project: ProjectState, segment: string): string {
    const mappings = this.projects.effectiveMappings(project);
    const id = expandIdSegment(segment, project.base, mappings);
    if (id === null) throw rejections.invalidResourceId(segment, expandedLengthProblem(segment, project.base, mappings));
    return id;
  }

  async create(ref: ProjectRef, idSegment: string | undefined, payload: JsonObject, identity: Identity): Promise<EntityState> {
    this.requireWriter(ref, identity);
    const project = await this.projects.forWrite(ref);
    const caller = renderCallerOf(identity);
    const id = (await this.checkedId(project, idSegment, payload, caller)) ?? project.base + randomUUID();
    const types = await this.checkJsonLd(id, payload, project, caller);
    const processing = processingOf(project);
    // The checks take a render thread's turn (up to seconds): the project may have stopped taking writes meanwhile.
    return this.projects.whileWritable(ref, () => this.revisions.create(projectKey(ref), id, 'resource', { source: payload, types, processing }, identity));
  }

  async update(ref: ProjectRef, idSegment: string, rev: number, payload: JsonObject, identity: Identity): Promise<EntityState> {
    const { project, id } = await this.changed(ref, idSegment, identity);
    // What the resource refuses (a stale `rev`, its state) before what the payload may be refused for, as its
    // preconditions see the write (readForWriter): the payload is the request's content (RFC 9110 §13.2.1).
    await this.revisions.checkedForChange(projectKey(ref), id, 'resource', { kind: 'update', rev });
    const caller = renderCallerOf(identity);
    // The payload's id may only name the URL's.
    await this.checkedId(project, idSegment, payload, caller);
    const types = await this.checkJsonLd(id, payload, project, caller);
    const processing = processingOf(project);
    return this.projects.whileWritable(ref, () =>
      this.revisions.update(projectKey(ref), id, 'resource', rev, identity, (latest) =>
        // As in Nexus, an update that changes nothing is ignored: the latest revision is answered, and no
        // new one made that would only turn the writes of others holding the latest revision into 409s.
        // The same payload under a project's new base or vocab is a change (of what it expands to); a
        // revision written before they were recorded is compared as before.
        isDeepStrictEqual(latest.source, payload) && isDeepStrictEqual(latest.types, types) && (latest.processing === undefined || isDeepStrictEqual(latest.processing, processing))
          ? null
          : { source: payload, types, processing },
      ),
    );
  }

  /**
   * Tags revision `target` in revision `rev + 1`. Setting a tag to the revision it names already is ignored,
   * as Nexus ignores it for resources (not for files): the latest revision is answered and none made, as for
   * an update that changes nothing.
   */
  async tag(ref: ProjectRef, idSegment: string, rev: number, tag: string, target: number, identity: Identity): Promise<EntityState> {
    const { id } = await this.changed(ref, idSegment, identity);
    return this.revisions.tag(projectKey(ref), id, 'resource', rev, tag, target, identity);
  }

  async untag(ref: ProjectRef, idSegment: string, rev: number, tag: string, identity: Identity): Promise<EntityState> {
    return this.revisions.untag(projectKey(ref), (await this.changed(ref, idSegment, identity)).id, 'resource', rev, tag, identity);
  }

  async deprecate(ref: ProjectRef, idSegment: string, rev: number, identity: Identity): Promise<EntityState> {
    return this.revisions.deprecate(projectKey(ref), (await this.changed(ref, idSegment, identity)).id, 'resource', rev, identity);
  }

  async undeprecate(ref: ProjectRef, idSegment: string, rev: number, identity: Identity): Promise<EntityState> {
    return this.revisions.undeprecate(projectKey(ref), (await this.changed(ref, idSegment, identity)).id, 'resource', rev, identity);
  }

  /**
   * The project and full id of the resource a change's URL names, once the caller may write in the project
   * and it takes writes: what any change changes, and what its preconditions look at.
   */
  private async changed(ref: ProjectRef, idSegment: string, identity: Identity): Promise<{ project: ProjectState; id: string }> {
    this.requireWriter(ref, identity);
    const project = await this.projects.forWrite(ref);
    return { project, id: await this.notAFile(ref, this.expandId(project, idSegment)) };
  }

  /**
   * `id`, unless it names a file: the resource routes read a file (fetch) but never change it, as a
   * file's revisions follow its content, which only /v1/files uploads.
   */
  private async notAFile(ref: ProjectRef, id: string): Promise<string> {
    if ((await this.revisions.kindOf(projectKey(ref), id)) === 'file') throw fileChangedAsResource(id, ref);
    return id;
  }

  /**
   * A resource by URL segment; with `kind` 'any', a file too (its metadata), as Nexus reads any entity
   * under the `_` schema. Either needs `resources/read`, the permission files are read with.
   */
  async fetch(
    ref: ProjectRef,
    idSegment: string,
    selector: RevisionSelector,
    identity: Identity,
    kind: 'resource' | 'any' = 'resource',
  ): Promise<{ state: EntityState; project: ProjectState }> {
    this.acls.require(identity, 'resources/read', projectAddress(ref));
    const project = await this.projects.forRead(ref);
    const state = await this.lookup(project, this.expandId(project, idSegment), selector);
    if (kind === 'resource' && state.kind !== 'resource') throw rejections.resourceNotFound(state.id, projectKey(ref));
    return { state, project };
  }

  /**
   * Throws the 403 of a write of resources in the project unless the caller holds `resources/write` there.
   * The writes check it themselves; the HTTP layer checks it also before reading a write's body, so that a
   * refused write costs no upload.
   */
  requireWriter(ref: ProjectRef, identity: Identity): void {
    this.acls.require(identity, 'resources/write', projectAddress(ref));
  }

  /**
   * The project a resource is created in, as a POST's preconditions see it: for a caller who may write
   * resources there, whether or not they may read them (else the write's 403), and a project that takes
   * writes (else the write's 400: a read-only, deprecated project or organization refuses first).
   */
  async projectForWriter(ref: ProjectRef, identity: Identity): Promise<ProjectState> {
    this.requireWriter(ref, identity);
    return this.projects.forWrite(ref);
  }

  /**
   * The latest revision of the entity under `idSegment`, as a write's preconditions see it: for a caller who
   * may write resources in the project, whether or not they may read them (else the write's 403), in a
   * project that takes writes (else its 400), and, for a change, once the change's own checks pass (else its
   * 400, 404 or 409: a file, a stale `rev`, the resource's state): a write refused anyway answers its refusal,
   * not 412. A creation finds the entity as `fetch` finds it under `_`, a file too.
   */
  async readForWriter(ref: ProjectRef, idSegment: string, write: EntityWrite, identity: Identity): Promise<EntityState> {
    if (write.kind === 'create') {
      const project = await this.projectForWriter(ref, identity);
      return this.lookup(project, this.expandId(project, idSegment), {});
    }
    return this.revisions.checkedForChange(projectKey(ref), (await this.changed(ref, idSegment, identity)).id, 'resource', write);
  }

  /** Any entity of a readable project by its full id: what archive Resource entries refer to. */
  async lookup(project: ProjectState, id: string, selector: RevisionSelector): Promise<EntityState> {
    return project.readOnly ? this.literature.fetch(id, selector) : this.revisions.fetch(projectKey(refOf(project)), id, selector);
  }

  /**
   * `lookup` reading the literature from one index generation until `release`: an archive download reads each entry
   * when it pins it and again when it streams it, and an ingestion between would change or remove articles mid-ZIP.
   */
  heldLookup(): { lookup: ResourceService['lookup']; release: () => void } {
    const literature = this.literature.heldFetch();
    return {
      lookup: async (project, id, selector) => (project.readOnly ? literature.fetch(id, selector) : this.lookup(project, id, selector)),
      release: literature.release,
    };
  }

  /**
   * Latest revisions of the project's resources, files included as in Nexus, in id order, only those passing
   * the request's filters (listing-filter.ts; a file's type is nxv:File).
   */
  async list(
    ref: ProjectRef,
    offset: number,
    limit: number,
    identity: Identity,
    request?: FilterRequest,
    kind: 'resource' | 'any' = 'any',
  ): Promise<{ total: number; states: ListedState[]; project: ProjectState }> {
    this.acls.require(identity, 'resources/read', projectAddress(ref));
    const project = await this.projects.forRead(ref);
    if (project.readOnly) {
      // Its resources are the index's articles, all alike: live, of one type, written by the server.
      if (request && hasFilters(request.filters)) throw literatureTakesNoFilters(projectKey(ref));
      return { ...this.literature.list(offset, limit), project };
    }
    const keep = listingPredicate(request, project, this.projects.effectiveMappings(project));
    return { ...(await this.revisions.list(projectKey(ref), kind, offset, limit, keep)), project };
  }

  /**
   * The id named by the URL and/or the payload (its `@id` or an alias of it); they must agree. Undefined
   * when neither names one. A payload naming it twice is refused by the JSON-LD check (colliding keywords).
   * The payload is checked for depth and contexts first, as its contexts are processed here.
   */
  private async checkedId(project: ProjectState, idSegment: string | undefined, payload: JsonObject, caller: RenderCaller): Promise<string | undefined> {
    // The URL's id first: it is refused (InvalidResourceId) before the payload is looked at, as the write's preconditions see it.
    const fromPath = idSegment === undefined ? undefined : this.expandId(project, idSegment);
    checkShape(payload);
    const [key] = idKeys(payload);
    if (key === undefined) return fromPath;
    const raw = payload[key];
    if (typeof raw !== 'string') throw rejections.decodingFailed([`The payload '${key}' must be a string.`]);
    const fromPayload = await this.payloadId(project, payload, raw, caller);
    if (fromPayload === undefined) return fromPath;
    if (fromPath !== undefined && fromPath !== fromPayload) throw rejections.unexpectedId(idSegment!, raw, { fromPath, fromPayload });
    return fromPayload;
  }

  /**
   * The IRI a payload id names, so that the resource is found again under its `_self`: a compact IRI
   * expanded with the payload's own prefixes, as JSON-LD expands it, then a mapped prefix left in it
   * expanded as in URLs (`cell:42` with the mapping `cell`); a relative reference resolved as JSON-LD resolves
   * it, against the payload's own `@base` when its context sets one, else the project base (with a payload's `@base`
   * ignored, its stored source would name another resource than its `_self`). Undefined for a blank node id
   * (`_:b0`), which names no resource: the URL's id or a new one is used.
   */
  private async payloadId(project: ProjectState, payload: JsonObject, reference: string, caller: RenderCaller): Promise<string | undefined> {
    if (reference.startsWith('_:')) return undefined;
    const mappings = this.projects.effectiveMappings(project);
    // Without a context of its own, a mapped prefix is expanded as in URLs, whether or not it could be a URI scheme.
    const mapped = '@context' in payload ? null : mappedExpansion(reference, mappings);
    const expandedByContext = !isRelativeIri(reference) || '@context' in payload;
    const expanded = mapped ?? (expandedByContext ? expandMappedPrefix(await this.withOwnPrefixes(project, payload, reference, caller), mappings) : reference);
    const id = resolveIri(expanded, project.base);
    if (id === null) throw rejections.invalidResourceId(reference, resolvedLengthProblem(expanded, project.base));
    return id;
  }

  /** `prefix:rest` as JSON-LD expands it with the payload's contexts (on a render thread, like the payload). */
  private async withOwnPrefixes(project: ProjectState, payload: JsonObject, reference: string, caller: RenderCaller): Promise<string> {
    if (!('@context' in payload)) return reference;
    // One metadata field keeps the node from being dropped as empty.
    const probe = { id: reference, source: { '@context': payload['@context'] }, metadata: { _rev: 1 }, base: project.base, vocab: project.vocab };
    const [node] = JSON.parse(await this.renderer.json(probe, 'expanded', caller)) as { '@id'?: string }[];
    return node?.['@id'] ?? reference;
  }

  /**
   * Rejects payloads the JSON-LD processor cannot expand (bad contexts, remote contexts, invalid keywords);
   * returns the types the expansion gave the resource's node, recorded for the listings' `type` filter.
   */
  private async checkJsonLd(id: string, payload: JsonObject, project: ProjectState, caller: RenderCaller): Promise<string[]> {
    // After the id's own check (InvalidResourceId). Kept as UTF-8, a lone surrogate turns into U+FFFD where
    // a field is stored apart (the listed @type) while the payload keeps it: one resource, two texts.
    // The survey made at the parse says whether there is one; only then is it looked for, to say where.
    if (surveyOf(payload).holdsLoneSurrogate) throw rejections.loneSurrogate('payload', loneSurrogatePointer(payload)!);
    // Written out once, in slices: sent to the render thread as this text, and stored as it.
    rememberPayloadJson(payload, await slicedJson(payload));
    const types = await this.renderer.expandedTypes({ id, source: payload, metadata: {}, base: project.base, vocab: project.vocab }, caller);
    // The listing's `type` filter refuses such a type (no IRI holds one), so the resource could never be listed by it.
    for (const type of types) {
      const forbidden = forbiddenIriCharacter(type);
      if (forbidden !== null) throw rejections.invalidJsonLd(`The type '${printableName(type)}' holds ${characterName(forbidden)}, which no IRI may hold.`);
    }
    return types;
  }
}

/** A character an IRI may not hold, as a refusal names it (the type quoted beside it shows a control character's code point). */
function characterName(character: string): string {
  if (character === ' ') return 'a space';
  return /[\u0000-\u001f\u007f]/.test(character) ? 'a control character' : `the character '${character}'`;
}

/** What a payload written in `project` now resolves against, recorded with its revision. */
function processingOf(project: ProjectState): Processing {
  return { base: project.base, vocab: project.vocab };
}

/** A 400, as for the other writes an entity's state refuses (ResourceIsDeprecated); the reason names the file's own URL. */
function fileChangedAsResource(id: string, ref: ProjectRef): PlatformError {
  const fileUrl = `/v1/files/${projectKey(ref)}/${encodeURIComponent(id)}`;
  return new PlatformError(400, 'ResourceIsAFile', `Resource '${id}' is a file: it is changed through ${fileUrl}; the resource routes only read it.`);
}

function literatureTakesNoFilters(project: string): PlatformError {
  return new PlatformError(400, 'MalformedQueryParam', `The resources of the read-only literature project '${project}' are listed without filters.`);
}

/** Rejects payloads nested too deeply or defining too many contexts, before any of their contexts is processed. */
function checkShape(payload: JsonObject): void {
  const tooDeep = depthProblem(payload);
  if (tooDeep !== null) throw rejections.decodingFailed([tooDeep]);
  const tooManyContexts = contextProblem(payload);
  if (tooManyContexts !== null) throw rejections.invalidJsonLd(tooManyContexts);
}
