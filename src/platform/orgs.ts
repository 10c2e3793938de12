/** Organizations: labelled containers of projects, with a description, revisions and deprecation. */
import { randomUUID } from 'node:crypto';
import type { Database } from 'lmdb';
import type { AclService } from './acls.js';
import { type Audit, createdBy, updatedBy } from './audit.js';
import { rejections } from './errors.js';
import type { Identity } from './identities.js';
import type { Store } from './store.js';

export interface OrgState extends Audit {
  label: string;
  uuid: string;
  description?: string;
  rev: number;
  deprecated: boolean;
}

export class OrgService {
  private readonly db: Database<OrgState, string>;

  constructor(
    private readonly store: Store,
    private readonly acls: AclService,
    private readonly clock: () => number,
  ) {
    this.db = store.database<OrgState, string>('orgs');
  }

  get(label: string): OrgState | undefined {
    return this.db.get(label);
  }

  fetch(label: string): OrgState {
    const org = this.db.get(label);
    if (!org) throw rejections.orgNotFound(label);
    return org;
  }

  /** The organization, for a caller who may read it. */
  read(label: string, identity: Identity): OrgState {
    this.acls.require(identity, 'resources/read', `/${label}`);
    return this.fetch(label);
  }

  /** Creates the organization (rev absent) or updates its description (rev = current revision). */
  save(label: string, description: string | undefined, rev: number | undefined, identity: Identity): OrgState {
    if (rev === undefined) this.acls.require(identity, 'organizations/create', '/');
    else this.acls.require(identity, 'organizations/write', `/${label}`);
    const saved = this.store.write(() => {
      const current = this.db.get(label);
      const now = this.clock();
      if (rev === undefined) {
        if (current) throw rejections.orgAlreadyExists(label);
        const org: OrgState = { label, uuid: randomUUID(), description, rev: 1, deprecated: false, ...createdBy(identity, now) };
        this.db.putSync(label, org);
        // In the same transaction: a crash between two would leave an organization its creator cannot write to.
        this.acls.grantOwner(`/${label}`, identity);
        return org;
      }
      const org = this.checkedForChange(label, current, rev);
      const next: OrgState = { ...org, ...updatedBy(org, identity, now), description, rev: org.rev + 1 };
      this.db.putSync(label, next);
      return next;
    });
    return saved;
  }

  deprecate(label: string, rev: number, identity: Identity): OrgState {
    this.acls.require(identity, 'organizations/write', `/${label}`);
    return this.store.write(() => {
      const org = this.checkedForChange(label, this.db.get(label), rev);
      const next: OrgState = { ...org, ...updatedBy(org, identity, this.clock()), deprecated: true, rev: org.rev + 1 };
      this.db.putSync(label, next);
      return next;
    });
  }

  /** Makes sure an organization exists, for the built-in literature project. */
  ensure(label: string, identity: Identity): void {
    this.store.write(() => {
      if (this.db.get(label)) return;
      this.db.putSync(label, { label, uuid: randomUUID(), rev: 1, deprecated: false, ...createdBy(identity, this.clock()) });
    });
  }

  private checkedForChange(label: string, org: OrgState | undefined, rev: number): OrgState {
    if (!org) throw rejections.orgNotFound(label);
    if (rev !== org.rev) throw rejections.incorrectRev(rev, org.rev);
    if (org.deprecated) throw rejections.orgIsDeprecated(label);
    return org;
  }
}
