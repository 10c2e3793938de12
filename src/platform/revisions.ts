/**
 * Versioned entities (resources and files share one id space per project, as
 * in Nexus). Every revision is kept as a full snapshot, so fetching `?rev=N`
 * is one read; the head records the latest revision and the kind.
 */
import { type Audit, createdBy, updatedBy } from './audit.js';
import { PlatformError, rejections } from './errors.js';
import type { Identity } from './identities.js';
import type { Page, Store, Table } from './store/store.js';
import { sourceJsonOf, withChanges, withoutSource, withStoredSource } from './stored-json.js';
import { LATEST_TAG, checkNewTagName } from './tags.js';

type EntityKind = 'resource' | 'file';

/** What a listing holds: the entities of one kind, or of every kind (the resource listing: files are resources too, as in Nexus). */
type ListedKind = EntityKind | 'any';

export interface FileAttributes {
  /** Hex SHA-256 of the content, also its name in the blob store. */
  digest: string;
  bytes: number;
  filename: string;
  mediaType: string;
}

/** What relative IRIs of a payload resolve against: the project's `base` (ids) and `vocab` (keys and types). */
export interface Processing {
  base: string;
  vocab: string;
}

export interface EntityState extends Audit {
  kind: EntityKind;
  id: string;
  /** `org/project` */
  project: string;
  rev: number;
  deprecated: boolean;
  /** The payload as submitted (resources); empty for files. */
  source: Record<string, unknown>;
  /** Size of the payload as JSON, recorded when the payload is stored: bounds what an archive may render before it renders anything. */
  sourceBytes?: number;
  /**
   * The payload's `@type` as written (an empty object when it has none), kept apart so that
   * a listing never parses payloads (sourceTypeOf); absent in revisions written before.
   */
  sourceType?: { '@type'?: unknown };
  /**
   * The payload's types as IRIs, as JSON-LD expanded them when the payload was written (its own
   * contexts, the project's vocab): what a listing's `type` filter matches. Absent for files, and in
   * revisions written before (listing-filter.ts derives them from `sourceType` then).
   */
  types?: string[];
  /**
   * The project's `base` and `vocab` when the payload was written: the revision renders under them, as Nexus
   * renders the expanded form it made at the write, so a project's new `vocab` changes no earlier revision
   * (nor its `types`, which the listing filter matches). Carried over by tags and deprecations; absent for
   * files, and in revisions written before (rendered under the project's current ones).
   */
  processing?: Processing;
  /**
   * The revision whose row of the payloads table holds this revision's payload text: its own
   * for a new payload, an earlier one's when a tag or a deprecation left the payload as it was.
   * Absent in memory until the revision is stored, and in revisions stored before.
   */
  payloadRev?: number;
  file?: FileAttributes;
  /** Tag -> revision, as known at this revision. */
  tags: Record<string, number>;
}

/**
 * A revision as stored: its metadata, the payload's text in the payloads table at
 * [project, id, payloadRev], so neither reading a revision's metadata nor listing
 * revisions reads a payload, and a revision that keeps its payload does not copy it.
 * Revisions stored before carry the payload as JSON text (`sourceJson`) or as an object
 * (`source`), and are read as they are.
 */
type StoredRevision = Omit<EntityState, 'source'> & ({ payloadRev: number } | { sourceJson: string } | { source: Record<string, unknown> });

/** A revision as a listing reads it: its metadata, and its payload only if stored inline (before payloads were apart). */
export type ListedState = Omit<EntityState, 'source'> & Partial<Pick<EntityState, 'source'>>;

/** The payload's `@type` (undefined when it has none), without parsing a stored payload that recorded it. */
export function sourceTypeOf(state: ListedState): unknown {
  return state.sourceType ? state.sourceType['@type'] : state.source?.['@type'];
}

function typeRecord(source: Record<string, unknown>): { '@type'?: unknown } {
  return '@type' in source ? { '@type': source['@type'] } : {};
}

/** A listed revision: payloads stored apart stay unread. */
function listed(stored: StoredRevision): ListedState {
  return 'sourceJson' in stored ? inlineState(stored) : stored;
}

function inlineState(stored: StoredRevision & { sourceJson: string }): EntityState {
  const { sourceJson, ...state } = stored;
  return withStoredSource(state, sourceJson);
}

/**
 * The most entities a filtered listing reads (those of its kind, or of every kind), in one project: beyond
 * it, a filtered listing is refused (docs/DESIGN.md, "Listing filters", for the measure behind the number).
 */
export const MAX_FILTERED_ENTRIES = 20_000;

/** The highest revision a request may name (a `rev` query parameter, a FileSelf's `?rev=`). */
export const MAX_REVISION = 2 ** 31;
/** Files listed, and revisions read, per read when collecting unreferenced contents. */
const DIGEST_PAGE = 1000;
/** Entities read between two turns of the event loop in a filtered listing. */
const FILTER_SLICE = 1000;

function tooManyToFilter(project: string, kind: ListedKind, entries: number, limit: number): PlatformError {
  const what = kind === 'any' ? 'resources and files' : `${kind}s`;
  return new PlatformError(
    400,
    'FilteredListingTooLarge',
    `Project '${project}' holds ${entries} ${what}: a filtered listing reads every one of them and is refused beyond ${limit}. List without filters (paged through the index) instead.`,
  );
}

interface Head {
  kind: EntityKind;
  rev: number;
}

/** What a change of an entity's latest revision sets (the rest is carried over). */
type Change = Partial<Pick<EntityState, 'source' | 'types' | 'processing' | 'file' | 'tags' | 'deprecated'>>;

/**
 * A change of an entity's latest revision `rev`, as its checks tell it apart (`untag`: the deletion of the
 * tag `tag`, Nexus's tag deletion).
 */
type EntityChange = { kind: 'update' | 'tag' | 'deprecate' | 'undeprecate'; rev: number } | { kind: 'untag'; rev: number; tag: string };

/** A write of a resource or file: a creation, or a change. */
export type EntityWrite = { kind: 'create' } | EntityChange;

/** Which revision to read: the latest, a number, or a tag. */
export type RevisionSelector = { rev: number } | { tag: string } | Record<string, never>;

/** The selector of a reference giving `rev`, `tag` or neither (its reader has refused both, in its own words). */
export function selectorOf(reference: { rev?: number; tag?: string }): RevisionSelector {
  if (reference.rev !== undefined) return { rev: reference.rev };
  if (reference.tag !== undefined) return { tag: reference.tag };
  return {};
}

function missingRevision(project: string, id: string, rev: number): Error {
  return new Error(`revision ${rev} of ${id} in ${project} is missing from the store`);
}

export class RevisionStore {
  private readonly heads: Table<Head>;
  /**
   * Revision numbers of the heads again, keyed [project, kind, id]: what a listing of one kind (the file
   * listing) pages through and counts; a listing of every kind pages through the heads themselves.
   */
  private readonly listings: Table<number>;
  private readonly revisions: Table<StoredRevision>;
  /** Payload texts, keyed [project, id, rev] of the revision that wrote them. */
  private readonly payloads: Table<string>;

  private constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly maxFilteredEntries: number,
  ) {
    this.heads = store.table('heads');
    this.listings = store.table('listings');
    this.revisions = store.table('revisions');
    this.payloads = store.table('payloads');
  }

  static async open(store: Store, clock: () => number, maxFilteredEntries = MAX_FILTERED_ENTRIES): Promise<RevisionStore> {
    const revisions = new RevisionStore(store, clock, maxFilteredEntries);
    await revisions.fillListings();
    return revisions;
  }

  /**
   * A store written before the listings table (LMDB; PostgreSQL's migration fills it) gets it
   * filled from the heads, once, in one write: re-checked inside, as replicas may start together.
   */
  private async fillListings(): Promise<void> {
    if ((await hasEntries(this.listings)) || !(await hasEntries(this.heads))) return;
    await this.store.write(async () => {
      if (await hasEntries(this.listings)) return;
      for (const { key, value } of await this.heads.range()) {
        const [project, id] = key as string[];
        await this.listings.put([project!, value.kind, id!], value.rev);
      }
    });
  }

  /** A revision that a head or listing names: its absence is a damaged store, said as such (not a TypeError further on). */
  private async storedRevision(project: string, id: string, rev: number): Promise<StoredRevision> {
    const stored = await this.revisions.get([project, id, rev]);
    if (stored === undefined) throw missingRevision(project, id, rev);
    return stored;
  }

  /** A stored revision with its payload: read from the payloads table, its text parsed on first use (stored-json.ts). */
  private async decoded(stored: StoredRevision): Promise<EntityState> {
    if ('sourceJson' in stored) return inlineState(stored);
    if ('source' in stored) return stored;
    const text = await this.payloads.get([stored.project, stored.id, stored.payloadRev]);
    if (text === undefined) throw new Error(`the payload of ${stored.id} rev ${stored.rev} (kept at rev ${stored.payloadRev}) is missing from the store`);
    return withStoredSource({ ...stored }, text);
  }

  async kindOf(project: string, id: string): Promise<EntityKind | undefined> {
    return (await this.heads.get([project, id]))?.kind;
  }

  /** The selected revision, or a typed 404 (resource, revision or tag not found). */
  async fetch(project: string, id: string, selector: RevisionSelector): Promise<EntityState> {
    const head = await this.heads.get([project, id]);
    if (!head) throw rejections.resourceNotFound(id, project);
    const rev = 'rev' in selector ? selector.rev : 'tag' in selector ? await this.taggedRev(project, id, head, selector.tag) : head.rev;
    if (rev < 1 || rev > head.rev) throw rejections.revisionNotFound(rev, head.rev);
    return this.decoded(await this.storedRevision(project, id, rev));
  }

  create(
    project: string,
    id: string,
    kind: EntityKind,
    content: { source: Record<string, unknown>; types?: string[]; processing?: Processing; file?: FileAttributes },
    identity: Identity,
  ): Promise<EntityState> {
    return this.store.write(async () => {
      await this.assertCreatable(project, id);
      const state: EntityState = {
        ...createdBy(identity, this.clock()),
        kind,
        id,
        project,
        rev: 1,
        deprecated: false,
        source: content.source,
        sourceType: typeRecord(content.source),
        ...(content.types && { types: content.types }),
        ...(content.processing && { processing: content.processing }),
        ...(content.file && { file: content.file }),
        tags: {},
      };
      await this.put(state);
      return state;
    });
  }

  /**
   * Writes revision `rev + 1` of an entity of `kind` whose latest revision is
   * `rev`, as `change` derives it from the latest. Deprecated entities cannot change.
   * A `change` of null changes nothing: no revision is written, and the latest is answered.
   */
  update(
    project: string,
    id: string,
    kind: EntityKind,
    rev: number,
    identity: Identity,
    change: (latest: EntityState) => Change | null,
  ): Promise<EntityState> {
    return this.revise(project, id, kind, { kind: 'update', rev }, identity, change);
  }

  /** Writes revision `rev + 1` of a deprecated entity, no longer deprecated (Nexus's undeprecate). */
  undeprecate(project: string, id: string, kind: EntityKind, rev: number, identity: Identity): Promise<EntityState> {
    return this.revise(project, id, kind, { kind: 'undeprecate', rev }, identity, () => ({ deprecated: false }));
  }

  /** Writes revision `change.rev + 1` as `derive` derives it from the latest, once `change`'s checks pass (checkedForChange). */
  private revise(
    project: string,
    id: string,
    kind: EntityKind,
    change: EntityChange,
    identity: Identity,
    derive: (latest: EntityState) => Change | null,
  ): Promise<EntityState> {
    return this.store.write(async () => {
      const latest = await this.checkedForChange(project, id, kind, change);
      const changed = derive(latest);
      if (changed === null) return latest;
      const changes: Partial<EntityState> = { ...changed, ...updatedBy(latest, identity, this.clock()), rev: change.rev + 1 };
      // A new payload gets a row of its own when stored (put); an unchanged one keeps pointing at its row.
      // Its types and processing are the change's, or unknown (derived from sourceType when listed), never the old payload's.
      if (changes.source) Object.assign(changes, { sourceType: typeRecord(changes.source), types: changes.types, processing: changes.processing, payloadRev: undefined });
      // Stored before types were recorded apart: recorded now, so that listings of the new revision need no payload.
      else if (!latest.sourceType) changes.sourceType = typeRecord(latest.source);
      // An unchanged payload goes on as its stored text: a tag or a deprecation neither parses nor re-encodes it.
      const next = withChanges(latest, changes);
      await this.put(next);
      return next;
    });
  }

  /** Throws what creating this id would throw; lets uploads fail before their bytes are stored. */
  async assertCreatable(project: string, id: string): Promise<void> {
    if (await this.heads.get([project, id])) throw rejections.resourceAlreadyExists(id, project);
  }

  /**
   * The latest revision of an entity of `kind` that `change` may change, or the change's refusal (a typed
   * 404, 409 or 400). The changes check it in their transaction; uploads before their bytes are stored, and
   * the writes' preconditions before the request's conditional headers (a write refused anyway answers its
   * refusal, not 412). What the request's content may refuse (a payload, a new tag's name or revision) is
   * checked after it, with or without preconditions: content comes after them (RFC 9110 §13.2.1).
   */
  async checkedForChange(project: string, id: string, kind: EntityKind, change: EntityChange): Promise<EntityState> {
    const latest = await this.latestAt(project, id, kind, change.rev);
    // A deprecated entity may still be undeprecated, but not changed otherwise.
    if (change.kind !== 'undeprecate' && latest.deprecated) throw kind === 'file' ? rejections.fileIsDeprecated(id) : rejections.resourceIsDeprecated(id);
    if (change.kind === 'undeprecate' && !latest.deprecated) throw kind === 'file' ? rejections.fileIsNotDeprecated(id) : rejections.resourceIsNotDeprecated(id);
    if (change.kind === 'untag' && !Object.hasOwn(latest.tags, change.tag)) throw rejections.tagNotFound(change.tag);
    return latest;
  }

  /** The latest revision of an entity of `kind`, when it is `rev`: a typed 404 or 409 otherwise. */
  private async latestAt(project: string, id: string, kind: EntityKind, rev: number): Promise<EntityState> {
    const head = await this.heads.get([project, id]);
    if (!head || head.kind !== kind) throw notFound(kind, id, project);
    if (rev !== head.rev) throw rejections.incorrectRev(rev, head.rev);
    return this.decoded(await this.storedRevision(project, id, head.rev));
  }

  /**
   * Writes revision `rev + 1` with `tag` naming revision `target`. A resource's tag naming `target` already makes
   * no revision: Nexus ignores it for resources, and for files writes one (its Files.scala).
   */
  tag(project: string, id: string, kind: EntityKind, rev: number, tag: string, target: number, identity: Identity): Promise<EntityState> {
    const sameTargetChangesNothing = kind === 'resource';
    return this.revise(project, id, kind, { kind: 'tag', rev }, identity, (latest) => {
      // The request's content (the tag's name and revision), checked once the entity takes the change (checkedForChange).
      checkNewTagName(tag);
      if (target < 1 || target > latest.rev) throw rejections.revisionNotFound(target, latest.rev);
      if (sameTargetChangesNothing && latest.tags[tag] === target) return null;
      return { tags: { ...latest.tags, [tag]: target } };
    });
  }

  /** Writes revision `rev + 1` without `tag` (Nexus's tag deletion); the revision it named stays. */
  untag(project: string, id: string, kind: EntityKind, rev: number, tag: string, identity: Identity): Promise<EntityState> {
    return this.revise(project, id, kind, { kind: 'untag', rev, tag }, identity, (latest) => {
      const { [tag]: _removed, ...kept } = latest.tags;
      return { tags: kept };
    });
  }

  deprecate(project: string, id: string, kind: EntityKind, rev: number, identity: Identity): Promise<EntityState> {
    return this.revise(project, id, kind, { kind: 'deprecate', rev }, identity, () => ({ deprecated: true }));
  }

  /**
   * Latest revisions of the entities of a project of `kind`, in id order (files among resources by their
   * ids when every kind is listed): the page read through the index, never the entities before it. With
   * `keep`, only the entities it keeps, counted and paged by scanning every entity listed (filteredList).
   */
  async list(
    project: string,
    kind: ListedKind,
    offset: number,
    limit: number,
    keep?: (state: ListedState) => boolean,
  ): Promise<{ total: number; states: ListedState[] }> {
    if (keep) return this.filteredList(project, kind, offset, limit, keep);
    const [total, page] = await Promise.all([this.indexCount(project, kind), this.indexRange(project, kind, { offset, limit })]);
    const states = await Promise.all(page.map(({ id, rev }) => this.storedRevision(project, id, rev)));
    return { total, states: states.map(listed) };
  }

  /**
   * How many entities a listing of `kind` holds, counted in its index: the listings table, keyed
   * [project, kind, id], for one kind; the heads, keyed [project, id], for every kind.
   */
  private indexCount(project: string, kind: ListedKind): Promise<number> {
    return kind === 'any' ? this.heads.count([project]) : this.listings.count([project, kind]);
  }

  /** The ids and latest revisions a listing of `kind` holds (a page of them), in id order, read from the index indexCount counts. */
  private async indexRange(project: string, kind: ListedKind, page?: Page): Promise<{ id: string; rev: number }[]> {
    if (kind === 'any') return (await this.heads.range([project], page)).map(({ key, value }) => ({ id: (key as string[])[1]!, rev: value.rev }));
    return (await this.listings.range([project, kind], page)).map(({ key, value: rev }) => ({ id: (key as string[])[2]!, rev }));
  }

  /**
   * A filter cannot use the listing index, so every entity listed (of the kind, or of every kind) is read,
   * in slices, the event loop let go between them; a project holding more than `maxFilteredEntries` of them
   * is refused before anything is read, so no request walks an unbounded number of entities.
   */
  private async filteredList(
    project: string,
    kind: ListedKind,
    offset: number,
    limit: number,
    keep: (state: ListedState) => boolean,
  ): Promise<{ total: number; states: ListedState[] }> {
    const entries = await this.indexCount(project, kind);
    if (entries > this.maxFilteredEntries) throw tooManyToFilter(project, kind, entries, this.maxFilteredEntries);
    const heads = await this.indexRange(project, kind);
    let total = 0;
    const states: ListedState[] = [];
    for (let start = 0; start < heads.length; start += FILTER_SLICE) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      const slice = heads.slice(start, start + FILTER_SLICE);
      const stored = await this.revisions.getMany(slice.map(({ id, rev }) => [project, id, rev]));
      for (const [i, revision] of stored.entries()) {
        if (revision === undefined) throw missingRevision(project, slice[i]!.id, slice[i]!.rev);
        const state = listed(revision);
        if (!keep(state)) continue;
        if (total >= offset && states.length < limit) states.push(state);
        total++;
      }
    }
    return { total, states };
  }

  /** The content digests of every revision of every file of `projects` (their keys, `org/project`). */
  async fileDigests(projects: Iterable<string>): Promise<Set<string>> {
    const digests = new Set<string>();
    // Through each project's file listing, a page at a time: the heads of every entity, resources
    // included, would all be held at once. A file's revisions are 1 to its head's, so they are read by
    // key, DIGEST_PAGE to a read: a range per file would cost a round trip to PostgreSQL per file, at
    // every start and every collection.
    for (const project of projects) {
      for (let offset = 0; ; offset += DIGEST_PAGE) {
        const files = await this.listings.range([project, 'file'], { offset, limit: DIGEST_PAGE });
        const ids = files.map(({ key }) => (key as string[])[2]!);
        // The heads' revisions, not the listing's copies: a version before the listings table, run on the
        // store since, may have written revisions past them.
        const heads = await this.heads.getMany(ids.map((id) => [project, id]));
        // Failing closed: a content missed here would be deleted as unreferenced.
        const incomplete = () => new Error(`the revisions of a file of ${project} are not all stored: no content is collected`);
        if (heads.includes(undefined)) throw incomplete();
        const keys = ids.flatMap((id, i) => Array.from({ length: heads[i]!.rev }, (_, rev) => [project, id, rev + 1]));
        for (let start = 0; start < keys.length; start += DIGEST_PAGE) {
          const stored = await this.revisions.getMany(keys.slice(start, start + DIGEST_PAGE));
          if (stored.includes(undefined)) throw incomplete();
          for (const state of stored) if (state!.file) digests.add(state!.file.digest);
        }
        if (files.length < DIGEST_PAGE) break;
      }
    }
    return digests;
  }

  private async taggedRev(project: string, id: string, head: Head, tag: string): Promise<number> {
    const { tags } = await this.storedRevision(project, id, head.rev);
    // Own tags only: `?tag=constructor` would otherwise read the object's prototype, a 500.
    if (Object.hasOwn(tags, tag)) return tags[tag]!;
    // Reserved for the latest revision, unless stored as a tag before the rule (such a tag still reads as stored).
    if (tag === LATEST_TAG) return head.rev;
    throw rejections.tagNotFound(tag);
  }

  private async put(state: EntityState): Promise<void> {
    const key = [state.project, state.id, state.rev];
    let { payloadRev } = state;
    if (payloadRev === undefined) {
      // The payload is written out once (for a write's checks, or here): its size is recorded from the text stored.
      const text = sourceJsonOf(state) ?? JSON.stringify(state.source);
      await this.payloads.put(key, text);
      state.sourceBytes = Buffer.byteLength(text);
      payloadRev = state.rev;
    }
    await this.revisions.put(key, { ...withoutSource(state), payloadRev });
    await this.heads.put([state.project, state.id], { kind: state.kind, rev: state.rev });
    await this.listings.put([state.project, state.kind, state.id], state.rev);
  }
}

/** Whether a table holds anything: one entry read, not all of them counted (this runs at every start). */
async function hasEntries(table: Table<unknown>): Promise<boolean> {
  return (await table.range(undefined, { offset: 0, limit: 1 })).length > 0;
}

function notFound(kind: EntityKind, id: string, project: string) {
  return kind === 'file' ? rejections.fileNotFound(id, project) : rejections.resourceNotFound(id, project);
}
