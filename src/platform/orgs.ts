/** Organizations: labelled containers of projects, with a description, revisions and deprecation. */
import { randomUUID } from 'node:crypto';
import type { AclService } from './acls.js';
import { type Audit, createdBy, updatedBy } from './audit.js';
import { rejections } from './errors.js';
import { loneSurrogatePointer } from '../text/unicode.js';
import type { Identity } from './identities.js';
import { orgAddress } from './refs.js';
import { PastStates } from './past-states.js';
import type { Store, Table } from './store/store.js';

export interface OrgState extends Audit {
  label: string;
  uuid: string;
  description?: string;
  rev: number;
  deprecated: boolean;
}

/** A write of an organization, as its checks tell it apart: a creation, or a change of the revision `rev`. */
export type OrgWrite = { kind: 'create' } | { kind: OrgChange; rev: number };
type OrgChange = 'update' | 'deprecate' | 'undeprecate';

export class OrgService {
  private readonly db: Table<OrgState>;
  private readonly past: PastStates<OrgState>;
  /** The organization of the built-in literature project (ensureLiterature). */
  private literatureOrg: string | null = null;

  constructor(
    private readonly store: Store,
    private readonly acls: AclService,
    private readonly clock: () => number,
  ) {
    this.db = store.table<OrgState>('orgs');
    this.past = new PastStates(store, 'org-revisions');
  }

  get(label: string): Promise<OrgState | undefined> {
    return this.db.get(label);
  }

  async fetch(label: string): Promise<OrgState> {
    const org = await this.db.get(label);
    if (!org) throw rejections.orgNotFound(label);
    return org;
  }

  /** The organization (at revision `rev`, its latest without), for a caller who may read it. */
  async read(label: string, identity: Identity, rev?: number): Promise<OrgState> {
    this.acls.require(identity, 'resources/read', orgAddress(label));
    const head = await this.fetch(label);
    return rev === undefined ? head : this.past.at(label, head, rev);
  }

  /**
   * The organization's latest revision, as a write's preconditions see it: for a caller who may perform that
   * write, whether or not they may read it (else the write's 403), and, for a change, once the change's own
   * checks pass (else its 404, 409 or 400): a write refused anyway answers its refusal, not 412.
   */
  async readForWriter(label: string, write: OrgWrite, identity: Identity): Promise<OrgState> {
    if (write.kind === 'create') {
      this.requireWriter(label, 'create', identity);
      return this.fetch(label);
    }
    this.requireWriter(label, 'change', identity);
    return this.checkedForChange(label, await this.db.get(label), write.rev, write.kind);
  }

  /** Creates the organization (rev absent) or updates its description (rev = current revision). */
  async save(label: string, description: string | undefined, rev: number | undefined, identity: Identity): Promise<OrgState> {
    this.requireWriter(label, rev === undefined ? 'create' : 'change', identity);
    // What the organization refuses before what the description may be refused for, as the update's preconditions
    // see it (readForWriter): the description is the request's content (RFC 9110 §13.2.1).
    if (rev !== undefined) this.checkedForChange(label, await this.db.get(label), rev, 'update');
    const surrogate = loneSurrogatePointer({ description });
    if (surrogate !== null) throw rejections.loneSurrogate('organization', surrogate);
    return this.store.write(async () => {
      const current = await this.db.get(label);
      const now = this.clock();
      if (rev === undefined) {
        if (current) throw rejections.orgAlreadyExists(label);
        const org: OrgState = { label, uuid: randomUUID(), description, rev: 1, deprecated: false, ...createdBy(identity, now) };
        await this.db.put(label, org);
        // In the same transaction: a crash between two would leave an organization its creator cannot write to.
        await this.acls.grantOwner(orgAddress(label), identity);
        return org;
      }
      const org = this.checkedForChange(label, current, rev, 'update');
      return this.replace(org, { ...org, ...updatedBy(org, identity, now), description, rev: org.rev + 1 });
    });
  }

  async deprecate(label: string, rev: number, identity: Identity): Promise<OrgState> {
    this.requireWriter(label, 'change', identity);
    return this.store.write(async () => {
      const org = this.checkedForChange(label, await this.db.get(label), rev, 'deprecate');
      return this.replace(org, { ...org, ...updatedBy(org, identity, this.clock()), deprecated: true, rev: org.rev + 1 });
    });
  }

  /** Makes a deprecated organization take projects and writes again, as Nexus's undeprecate. */
  async undeprecate(label: string, rev: number, identity: Identity): Promise<OrgState> {
    this.requireWriter(label, 'change', identity);
    return this.store.write(async () => {
      const org = this.checkedForChange(label, await this.db.get(label), rev, 'undeprecate');
      return this.replace(org, { ...org, ...updatedBy(org, identity, this.clock()), deprecated: false, rev: org.rev + 1 });
    });
  }

  /** Makes sure the organization of the built-in literature project exists; it cannot be deprecated. */
  async ensureLiterature(label: string, identity: Identity): Promise<void> {
    this.literatureOrg = label;
    await this.store.write(async () => {
      if (await this.db.get(label)) return;
      await this.db.put(label, { label, uuid: randomUUID(), rev: 1, deprecated: false, ...createdBy(identity, this.clock()) });
    });
  }

  /**
   * Throws the 403 of a write unless the caller holds its permission: to create the organization (a write
   * without `rev`) or to change it (any other write). The writes check it themselves; the HTTP layer checks
   * it also before reading a write's body, so that a refused write costs no upload.
   */
  requireWriter(label: string, write: 'create' | 'change', identity: Identity): void {
    if (write === 'create') this.acls.require(identity, 'organizations/create', '/');
    else this.acls.require(identity, 'organizations/write', orgAddress(label));
  }

  /** Inside `Store.write`: `next` becomes the head, the state it supersedes is kept for `?rev=` reads. */
  private async replace(current: OrgState, next: OrgState): Promise<OrgState> {
    await this.past.keep(current.label, current);
    await this.db.put(next.label, next);
    return next;
  }

  /**
   * The organization `change` may change from revision `rev`, or the change's refusal. The changes check it
   * in their transaction, and their preconditions before the request's conditional headers (readForWriter).
   */
  private checkedForChange(label: string, org: OrgState | undefined, rev: number, change: OrgChange): OrgState {
    // Deprecated, it would refuse the literature project's own settings with a misleading reason.
    if (change === 'deprecate' && label === this.literatureOrg) throw rejections.orgHoldsReadOnlyProject(label);
    if (!org) throw rejections.orgNotFound(label);
    if (rev !== org.rev) throw rejections.incorrectRev(rev, org.rev);
    // A deprecated organization may still be undeprecated, but not changed otherwise.
    if (change !== 'undeprecate' && org.deprecated) throw rejections.orgIsDeprecated(label);
    if (change === 'undeprecate' && !org.deprecated) throw rejections.orgIsNotDeprecated(label);
    return org;
  }
}
