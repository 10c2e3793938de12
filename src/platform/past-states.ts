/**
 * The superseded revisions of organizations and projects, for `?rev=N` reads. Their head stays
 * in its own table (what every other read and the listings use); each change keeps the state it
 * replaces here, keyed [key, rev], in the same write as the new head. An organization or project
 * created before these were kept has no entries below the revision it had then: those
 * revisions answer a 404 that says they were never kept.
 */
import { rejections } from './errors.js';
import type { Store, Table } from './store/store.js';

export class PastStates<S extends { rev: number }> {
  private readonly table: Table<S>;

  constructor(store: Store, name: 'org-revisions' | 'project-revisions') {
    this.table = store.table<S>(name);
  }

  /** Only inside `Store.write`, with the head's own put: keeps `replaced` as its successor takes the head. */
  keep(key: string, replaced: S): Promise<void> {
    return this.table.put([key, replaced.rev], replaced);
  }

  /** The state at `rev` of the entity whose head is `head`; a RevisionNotFound 404 when there is none. */
  async at(key: string, head: S, rev: number): Promise<S> {
    if (rev === head.rev) return head;
    if (rev > head.rev) throw rejections.revisionNotFound(rev, head.rev);
    const past = await this.table.get([key, rev]);
    if (past) return past;
    // Every change keeps what it replaces, so a gap below the head can only be history from before they were kept.
    const [earliest] = await this.table.range([key], { offset: 0, limit: 1 });
    throw rejections.revisionNotKept(rev, earliest?.value.rev ?? head.rev);
  }
}
