/**
 * Versioned entities (resources and files share one id space per project, as
 * in Nexus). Every revision is kept as a full snapshot, so fetching `?rev=N`
 * is one read; the head records the latest revision and the kind.
 */
import { type Audit, createdBy, updatedBy } from './audit.js';
import { rejections } from './errors.js';
import type { Identity } from './identities.js';
import type { Store, Table } from './store/store.js';
import { storedJsonOf, withChanges, withoutSource, withStoredSource } from './stored-json.js';

export type EntityKind = 'resource' | 'file';

export interface FileAttributes {
  /** Hex SHA-256 of the content, also its name in the blob store. */
  digest: string;
  bytes: number;
  filename: string;
  mediaType: string;
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
  /** Size of the payload as JSON, recorded at write time: bounds what an archive may render before it renders anything. */
  sourceBytes?: number;
  /**
   * The payload's `@type` as written (an empty object when it has none), kept apart so that
   * a listing never parses payloads (sourceTypeOf); absent in revisions written before.
   */
  sourceType?: { '@type'?: unknown };
  file?: FileAttributes;
  /** Tag -> revision, as known at this revision. */
  tags: Record<string, number>;
}

/**
 * A revision as stored: the payload as JSON text (`sourceJson`), so reading a revision decodes
 * only its metadata and the payload is parsed when first read (stored-json.ts). Revisions
 * written before carry `source` as an object and are read as they are.
 */
type StoredRevision = Omit<EntityState, 'source'> & ({ sourceJson: string } | { source: Record<string, unknown> });

/** The payload's `@type` (undefined when it has none), without parsing a stored payload that recorded it. */
export function sourceTypeOf(state: EntityState): unknown {
  return state.sourceType ? state.sourceType['@type'] : state.source['@type'];
}

function typeRecord(source: Record<string, unknown>): { '@type'?: unknown } {
  return '@type' in source ? { '@type': source['@type'] } : {};
}

function decoded(stored: StoredRevision): EntityState {
  if (!('sourceJson' in stored)) return stored;
  const { sourceJson, ...state } = stored;
  return withStoredSource(state, sourceJson);
}

function encoded(state: EntityState): StoredRevision {
  const sourceJson = storedJsonOf(state) ?? JSON.stringify(state.source);
  return { ...withoutSource(state), sourceJson };
}

interface Head {
  kind: EntityKind;
  rev: number;
}

/** Which revision to read: the latest, a number, or a tag. */
export type RevisionSelector = { rev: number } | { tag: string } | Record<string, never>;

export class RevisionStore {
  private readonly heads: Table<Head>;
  private readonly revisions: Table<StoredRevision>;

  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {
    this.heads = store.table('heads');
    this.revisions = store.table('revisions');
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
    return decoded((await this.revisions.get([project, id, rev]))!);
  }

  create(
    project: string,
    id: string,
    kind: EntityKind,
    content: { source: Record<string, unknown>; sourceBytes?: number; file?: FileAttributes },
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
        ...(content.sourceBytes !== undefined && { sourceBytes: content.sourceBytes }),
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
   */
  update(
    project: string,
    id: string,
    kind: EntityKind,
    rev: number,
    identity: Identity,
    change: (latest: EntityState) => Partial<Pick<EntityState, 'source' | 'sourceBytes' | 'file' | 'tags' | 'deprecated'>>,
  ): Promise<EntityState> {
    return this.store.write(async () => {
      const latest = await this.assertUpdatable(project, id, kind, rev);
      const changes: Partial<EntityState> = { ...change(latest), ...updatedBy(latest, identity, this.clock()), rev: rev + 1 };
      if (changes.source) changes.sourceType = typeRecord(changes.source);
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

  /** Throws what updating from `rev` would throw; returns the latest revision otherwise. */
  async assertUpdatable(project: string, id: string, kind: EntityKind, rev: number): Promise<EntityState> {
    const head = await this.heads.get([project, id]);
    if (!head || head.kind !== kind) throw notFound(kind, id, project);
    if (rev !== head.rev) throw rejections.incorrectRev(rev, head.rev);
    const latest = decoded((await this.revisions.get([project, id, head.rev]))!);
    if (latest.deprecated) throw rejections.resourceIsDeprecated(id);
    return latest;
  }

  tag(project: string, id: string, kind: EntityKind, rev: number, tag: string, target: number, identity: Identity): Promise<EntityState> {
    return this.update(project, id, kind, rev, identity, (latest) => {
      if (target < 1 || target > latest.rev) throw rejections.revisionNotFound(target, latest.rev);
      return { tags: { ...latest.tags, [tag]: target } };
    });
  }

  deprecate(project: string, id: string, kind: EntityKind, rev: number, identity: Identity): Promise<EntityState> {
    return this.update(project, id, kind, rev, identity, () => ({ deprecated: true }));
  }

  /** Latest revisions of the entities of a project, in id order. */
  async list(project: string, kind: EntityKind, offset: number, limit: number): Promise<{ total: number; states: EntityState[] }> {
    const matching = (await this.heads.range([project])).filter(({ value }) => value.kind === kind);
    const page = matching.slice(offset, offset + limit);
    const states = await Promise.all(page.map(({ key, value }) => this.revisions.get([project, (key as string[])[1]!, value.rev])));
    return { total: matching.length, states: states.map((state) => decoded(state!)) };
  }

  /** The content digests of every revision of every file. */
  async fileDigests(): Promise<Set<string>> {
    const digests = new Set<string>();
    for (const { key, value } of await this.heads.range()) {
      if (value.kind !== 'file') continue;
      const [project, id] = key as string[];
      for (const { value: state } of await this.revisions.range([project!, id!])) if (state.file) digests.add(state.file.digest);
    }
    return digests;
  }

  private async taggedRev(project: string, id: string, head: Head, tag: string): Promise<number> {
    const rev = (await this.revisions.get([project, id, head.rev]))!.tags[tag];
    if (rev === undefined) throw rejections.tagNotFound(tag);
    return rev;
  }

  private async put(state: EntityState): Promise<void> {
    await this.revisions.put([state.project, state.id, state.rev], encoded(state));
    await this.heads.put([state.project, state.id], { kind: state.kind, rev: state.rev });
  }
}

function notFound(kind: EntityKind, id: string, project: string) {
  return kind === 'file' ? rejections.fileNotFound(id, project) : rejections.resourceNotFound(id, project);
}
