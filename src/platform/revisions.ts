/**
 * Versioned entities (resources and files share one id space per project, as
 * in Nexus). Every revision is kept as a full snapshot, so fetching `?rev=N`
 * is one read; the head records the latest revision and the kind.
 */
import type { Database } from 'lmdb';
import { type Audit, createdBy, updatedBy } from './audit.js';
import { rejections } from './errors.js';
import type { Identity } from './identities.js';
import type { Store } from './store.js';

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
  file?: FileAttributes;
  /** Tag -> revision, as known at this revision. */
  tags: Record<string, number>;
}

interface Head {
  kind: EntityKind;
  rev: number;
}

/** Which revision to read: the latest, a number, or a tag. */
export type RevisionSelector = { rev: number } | { tag: string } | Record<string, never>;

export class RevisionStore {
  private readonly heads: Database<Head, [string, string]>;
  private readonly revisions: Database<EntityState, [string, string, number]>;

  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {
    this.heads = store.database('heads');
    this.revisions = store.database('revisions');
  }

  kindOf(project: string, id: string): EntityKind | undefined {
    return this.heads.get([project, id])?.kind;
  }

  /** The selected revision, or a typed 404 (resource, revision or tag not found). */
  fetch(project: string, id: string, selector: RevisionSelector): EntityState {
    const head = this.heads.get([project, id]);
    if (!head) throw rejections.resourceNotFound(id, project);
    const rev = 'rev' in selector ? selector.rev : 'tag' in selector ? this.taggedRev(project, id, head, selector.tag) : head.rev;
    if (rev < 1 || rev > head.rev) throw rejections.revisionNotFound(rev, head.rev);
    return this.revisions.get([project, id, rev])!;
  }

  create(
    project: string,
    id: string,
    kind: EntityKind,
    content: { source: Record<string, unknown>; sourceBytes?: number; file?: FileAttributes },
    identity: Identity,
  ): EntityState {
    return this.store.write(() => {
      this.assertCreatable(project, id);
      const state: EntityState = {
        ...createdBy(identity, this.clock()),
        kind,
        id,
        project,
        rev: 1,
        deprecated: false,
        source: content.source,
        ...(content.sourceBytes !== undefined && { sourceBytes: content.sourceBytes }),
        ...(content.file && { file: content.file }),
        tags: {},
      };
      this.put(state);
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
  ): EntityState {
    return this.store.write(() => {
      const latest = this.assertUpdatable(project, id, kind, rev);
      const next: EntityState = { ...latest, ...change(latest), ...updatedBy(latest, identity, this.clock()), rev: rev + 1 };
      this.put(next);
      return next;
    });
  }

  /** Throws what creating this id would throw; lets uploads fail before their bytes are stored. */
  assertCreatable(project: string, id: string): void {
    if (this.heads.get([project, id])) throw rejections.resourceAlreadyExists(id, project);
  }

  /** Throws what updating from `rev` would throw; returns the latest revision otherwise. */
  assertUpdatable(project: string, id: string, kind: EntityKind, rev: number): EntityState {
    const head = this.heads.get([project, id]);
    if (!head || head.kind !== kind) throw notFound(kind, id, project);
    if (rev !== head.rev) throw rejections.incorrectRev(rev, head.rev);
    const latest = this.revisions.get([project, id, head.rev])!;
    if (latest.deprecated) throw rejections.resourceIsDeprecated(id);
    return latest;
  }

  tag(project: string, id: string, kind: EntityKind, rev: number, tag: string, target: number, identity: Identity): EntityState {
    return this.update(project, id, kind, rev, identity, (latest) => {
      if (target < 1 || target > latest.rev) throw rejections.revisionNotFound(target, latest.rev);
      return { tags: { ...latest.tags, [tag]: target } };
    });
  }

  deprecate(project: string, id: string, kind: EntityKind, rev: number, identity: Identity): EntityState {
    return this.update(project, id, kind, rev, identity, () => ({ deprecated: true }));
  }

  /** Latest revisions of the entities of a project, in id order. */
  list(project: string, kind: EntityKind, offset: number, limit: number): { total: number; states: EntityState[] } {
    const range = { start: [project] as [string], end: [project, '\uffff'] as [string, string] };
    const matching = this.heads.getRange(range).filter(({ value }) => value.kind === kind);
    let total = 0;
    const states: EntityState[] = [];
    for (const { key, value } of matching) {
      if (total >= offset && states.length < limit) states.push(this.revisions.get([project, key[1], value.rev])!);
      total++;
    }
    return { total, states };
  }

  /** The content digests of every revision of every file, read in one synchronous pass. */
  fileDigests(): Set<string> {
    const digests = new Set<string>();
    for (const { key, value } of this.heads.getRange()) {
      if (value.kind !== 'file') continue;
      for (let rev = 1; rev <= value.rev; rev++) {
        const digest = this.revisions.get([key[0], key[1], rev])?.file?.digest;
        if (digest) digests.add(digest);
      }
    }
    return digests;
  }

  private taggedRev(project: string, id: string, head: Head, tag: string): number {
    const rev = this.revisions.get([project, id, head.rev])!.tags[tag];
    if (rev === undefined) throw rejections.tagNotFound(tag);
    return rev;
  }

  private put(state: EntityState): void {
    this.revisions.putSync([state.project, state.id, state.rev], state);
    this.heads.putSync([state.project, state.id], { kind: state.kind, rev: state.rev });
  }
}

function notFound(kind: EntityKind, id: string, project: string) {
  return kind === 'file' ? rejections.fileNotFound(id, project) : rejections.resourceNotFound(id, project);
}
