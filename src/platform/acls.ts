/**
 * Access control lists on `/`, `/{org}` and `/{org}/{project}`, inherited
 * downwards. Two layers are in force together: the grants of the auth file,
 * which only the operator changes, and the grants stored through the ACL API.
 * Without an auth file only the built-in anonymous read grant applies.
 *
 * Permission checks read the stored ACLs from memory: loaded at start, and
 * reloaded per address after every ACL write, this server's (before the write
 * answers) or another's sharing the store (when its notice arrives: LISTEN/NOTIFY
 * with PostgreSQL). Revision checks of ACL writes read the store itself.
 */
import { isDeepStrictEqual } from 'node:util';
import { type Audit, createdBy, updatedBy } from './audit.js';
import type { AclGrants } from './auth-file.js';
import { AuthorizationError, rejections } from './errors.js';
import { type Identity, OPERATOR, grantKeysOf, nameProblem, principalKey, principalOfKey, printableName, typedKeyOf } from './identities.js';
import { ALL_PERMISSIONS, PERMISSIONS, type Permission } from './permissions.js';
import { type AclAddress, addressChain } from './refs.js';
import { type AclEntryInput, type Grants, type ListedAcl, grantsOf, listed } from './acl-entries.js';
import type { Store, Table } from './store/store.js';

export interface StoredAcl extends Audit {
  rev: number;
  grants: GrantRecord;
}

/** principal key -> permissions, as stored */
type GrantRecord = Record<string, string[]>;

/** A write of the ACL at an address from its revision `rev` (0: none was ever written there), as its checks tell it apart. */
export type AclWrite = { kind: 'replace' | 'append' | 'subtract' | 'delete'; rev: number };

const ACL_CHANNEL = 'acls';
/** Announced when every address may have changed. */
const EVERY_ADDRESS = '*';

export class AclService {
  private readonly db: Table<StoredAcl>;
  /** The stored ACLs, by address, as permission checks read them. */
  private readonly cached = new Map<string, StoredAcl>();

  static async open(store: Store, configured: AclGrants, storedGrantsApply: boolean, clock: () => number): Promise<AclService> {
    const acls = new AclService(store, configured, storedGrantsApply, clock);
    await acls.typeStoredKeys();
    await acls.reload(EVERY_ADDRESS);
    store.onAnnounce(ACL_CHANNEL, (address) => acls.reload(address));
    return acls;
  }

  private constructor(
    private readonly store: Store,
    /** The auth file's grants: replaced when the file is read again (replaceFileGrants). */
    private configured: AclGrants,
    /** False without an auth file: stored grants are then ignored. */
    private readonly storedGrantsApply: boolean,
    private readonly clock: () => number,
  ) {
    this.db = store.table<StoredAcl>('acls');
  }

  private async reload(address: string): Promise<void> {
    if (address === EVERY_ADDRESS) {
      // Merged into memory, not swapped for it: an ACL created while this read ran (its own reload done
      // first) is missing from the entries read, and ACL rows are never removed, so nothing read can be
      // one memory should forget.
      for (const { key, value } of await this.db.range()) this.cached.set(key as string, this.newer(key as string, value));
      return;
    }
    const stored = await this.db.get(address);
    if (stored) this.cached.set(address, this.newer(address, stored));
    else this.cached.delete(address);
  }

  /**
   * `stored`, unless memory holds a later revision of that ACL: reloads read on connections of their own
   * (PostgreSQL) and may finish out of order; an ACL's revision only grows (a deletion is a revision too).
   */
  private newer(address: string, stored: StoredAcl): StoredAcl {
    const cached = this.cached.get(address);
    return cached !== undefined && cached.rev > stored.rev ? cached : stored;
  }

  /** Rewrites grants stored before principal keys were typed (`local/alice` -> `user:local:alice`), once. */
  private async typeStoredKeys(): Promise<void> {
    await this.store.write(async () => {
      for (const { key, value } of await this.db.range()) {
        const entries = Object.entries(value.grants);
        if (entries.every(([principal]) => principalOfKey(principal) !== null)) continue;
        const grants: GrantRecord = {};
        for (const [principal, permissions] of entries) {
          const typed = typedKeyOf(principal);
          if (typed !== null) grants[typed] = [...new Set([...(grants[typed] ?? []), ...permissions])].sort();
        }
        await this.db.put(key, { ...value, grants });
      }
    });
  }

  has(identity: Identity, permission: Permission, address: AclAddress): boolean {
    if (identity === OPERATOR) return true;
    const keys = grantKeysOf(identity);
    return addressChain(address).some((at) => {
      const fromFile = this.configured.get(at);
      if (fromFile) {
        for (const [key, permissions] of fromFile) {
          if (keys.has(key) && (permissions.has(permission) || permissions.has(ALL_PERMISSIONS))) return true;
        }
      }
      const stored = this.storedGrantsApply ? this.cached.get(at) : undefined;
      return stored !== undefined && Object.entries(stored.grants).some(([key, ps]) => keys.has(key) && ps.includes(permission));
    });
  }

  require(identity: Identity, permission: Permission, address: AclAddress): void {
    if (!this.has(identity, permission, address)) throw new AuthorizationError(permission, address);
  }

  stored(address: AclAddress): StoredAcl | undefined {
    return this.cached.get(address);
  }

  /**
   * Throws the 403 of a write of the ACL at `address` unless the caller holds `acls/write` there. The writes
   * check it themselves; the HTTP layer checks it also before reading a write's body, so that a refused write
   * costs no upload.
   */
  requireWriter(identity: Identity, address: AclAddress): void {
    this.require(identity, 'acls/write', address);
  }

  /**
   * The ACL stored at `address`, as a write's preconditions see it: for a caller who may perform `write`
   * (else its 403), once the write's own checks of the stored ACL pass (else its 404, 409 or 400: a write
   * refused anyway answers its refusal, not 412). A write from revision 0 where an ACL is stored is a
   * creation over an existing target, what If-None-Match: * asks about: the write refuses it (409) after
   * the preconditions, as the other creations do.
   */
  async storedForWriter(identity: Identity, address: AclAddress, write: AclWrite): Promise<StoredAcl | undefined> {
    this.require(identity, 'acls/write', address);
    const stored = await this.db.get(address);
    return write.rev === 0 && stored !== undefined ? stored : checkedForChange(address, stored, write);
  }

  /**
   * The ACLs at `address` (and its ancestors): with `onlyOwn`, the caller's own grants; otherwise
   * every grant, which needs `acls/read` there (ancestors are listed only where the caller has it too).
   */
  list(address: AclAddress, identity: Identity, onlyOwn: boolean, withAncestors: boolean): ListedAcl[] {
    if (!onlyOwn) this.require(identity, 'acls/read', address);
    const own = grantKeysOf(identity);
    const keep = (key: string) => !onlyOwn || own.has(key);
    const addresses = (withAncestors ? addressChain(address).reverse() : [address]).filter((at) => onlyOwn || this.has(identity, 'acls/read', at));
    return addresses.flatMap((at) => {
      // Stored grants not in force (no auth file) are not listed: a listing says what is granted.
      const stored = this.storedGrantsApply ? this.cached.get(at) : undefined;
      return [
        ...listed(at, this.configured.get(at) ?? [], 'auth-file', 0, keep),
        ...(stored ? listed(at, Object.entries(stored.grants), 'store', stored.rev, keep) : []),
      ];
    });
  }

  replace(address: AclAddress, entries: readonly AclEntryInput[], rev: number, identity: Identity): Promise<StoredAcl> {
    this.require(identity, 'acls/write', address);
    // As in Nexus, a replacement is a revision even when it stores the grants already stored.
    return this.change(address, { kind: 'replace', rev }, identity, () => toRecord(grantsOf(address, entries)));
  }

  append(address: AclAddress, entries: readonly AclEntryInput[], rev: number, identity: Identity): Promise<StoredAcl> {
    this.require(identity, 'acls/write', address);
    return this.change(address, { kind: 'append', rev }, identity, (current) => appended(current, grantsOf(address, entries)));
  }

  subtract(address: AclAddress, entries: readonly AclEntryInput[], rev: number, identity: Identity): Promise<StoredAcl> {
    this.require(identity, 'acls/write', address);
    return this.change(address, { kind: 'subtract', rev }, identity, (current) => subtracted(current, grantsOf(address, entries)));
  }

  delete(address: AclAddress, rev: number, identity: Identity): Promise<StoredAcl> {
    this.require(identity, 'acls/write', address);
    return this.change(address, { kind: 'delete', rev }, identity, () => ({}));
  }

  /** Puts the grants of an auth file read again in force for the checks and listings from now on. */
  replaceFileGrants(grants: AclGrants): void {
    this.configured = grants;
  }

  /**
   * Stored grants to users or groups whose names no token can carry any more (control, bidirectional or
   * invisible characters, white space at either end: `nameProblem`), as `address principal-key` lines.
   * Written before such names were refused, they grant nothing but still show in listings.
   */
  inertGrants(): string[] {
    const inert: string[] = [];
    for (const [address, acl] of this.cached) {
      for (const key of Object.keys(acl.grants)) {
        const principal = principalOfKey(key);
        const name = principal?.type === 'User' ? principal.subject : principal?.type === 'Group' ? principal.group : null;
        // Quoted: a trailing space, the very case refused, would not show otherwise.
        if (name !== null && acl.grants[key]!.length > 0 && nameProblem(name) !== null) inert.push(`${address} ${JSON.stringify(printableName(key))}`);
      }
    }
    return inert;
  }

  /**
   * Gives the creator of an organization or project every permission on it, as Nexus does for owners;
   * nothing when the ACL there grants them all already (a revision would change nothing).
   */
  async grantOwner(address: AclAddress, identity: Identity): Promise<void> {
    if (identity === OPERATOR || identity.subject.type !== 'User') return;
    const owner: Grants = new Map([[principalKey(identity.subject), new Set<Permission>(PERMISSIONS)]]);
    await this.store.write(async () => {
      // Whatever the stored revision: the grant belongs to a creation, not to a write made from a revision a caller read.
      const current = await this.db.get(address);
      const grants = appended(current?.grants ?? {}, owner);
      if (!sameGrants(grants, current?.grants ?? {})) await this.storeNext(address, current, grants, identity);
    });
  }

  /**
   * Writes the next revision of the ACL at `address`, whose grants `next` derives from the stored ones
   * (checking the request's entries), once `write`'s checks of the stored ACL pass (checkedForChange). An
   * append or subtraction that leaves the grants as they are is refused, as Nexus refuses it: a revision
   * that changes nothing would only make concurrent writers holding the current revision fail with 409.
   */
  private change(address: AclAddress, write: AclWrite, identity: Identity, next: (current: GrantRecord) => GrantRecord): Promise<StoredAcl> {
    return this.store.write(async () => {
      const current = checkedForChange(address, await this.db.get(address), write);
      const grants = next(current?.grants ?? {});
      if ((write.kind === 'append' || write.kind === 'subtract') && sameGrants(grants, current?.grants ?? {})) throw rejections.nothingToBeUpdated(address);
      return this.storeNext(address, current, grants, identity);
    });
  }

  /** Inside `Store.write`: stores `grants` as the revision after `current` (the first without), and announces it to every server sharing the store. */
  private async storeNext(address: AclAddress, current: StoredAcl | undefined, grants: GrantRecord, identity: Identity): Promise<StoredAcl> {
    const now = this.clock();
    const audit = current ? updatedBy(current, identity, now) : createdBy(identity, now);
    const acl: StoredAcl = { ...audit, rev: (current?.rev ?? 0) + 1, grants };
    await this.db.put(address, acl);
    await this.store.announce(ACL_CHANNEL, address);
    return acl;
  }
}

/**
 * The ACL stored at `address` (`current`) that `write` may change, or the write's refusal, as Nexus gives
 * them: an address where no ACL was ever written, for a subtraction or deletion (nothing to act on), before
 * the revision is compared; a stale revision; the deletion of an ACL that grants nothing. All are decided by
 * the stored ACL alone, before the request's entries are read (RFC 9110 §13.2.1): the writes check them in
 * their transaction, and their preconditions before the request's conditional headers (storedForWriter).
 */
function checkedForChange(address: AclAddress, current: StoredAcl | undefined, write: AclWrite): StoredAcl | undefined {
  if (current === undefined && (write.kind === 'subtract' || write.kind === 'delete')) throw rejections.aclNotFound(address);
  const currentRev = current?.rev ?? 0;
  if (write.rev !== currentRev) throw rejections.incorrectRev(write.rev, currentRev);
  if (write.kind === 'delete' && sameGrants(current!.grants, {})) throw rejections.aclIsEmpty(address);
  return current;
}

function appended(record: GrantRecord, grants: Grants): GrantRecord {
  const merged = toGrants(record);
  for (const [key, permissions] of grants) {
    const existing = merged.get(key) ?? new Set<Permission>();
    for (const p of permissions) existing.add(p);
    merged.set(key, existing);
  }
  return toRecord(merged);
}

function subtracted(record: GrantRecord, grants: Grants): GrantRecord {
  const remaining = toGrants(record);
  for (const [key, permissions] of grants) {
    const existing = remaining.get(key);
    if (existing) for (const p of permissions) existing.delete(p);
  }
  return toRecord(remaining);
}

/** Whether two ACLs grant the same permissions to the same principals (a principal left without any counts as absent). */
function sameGrants(a: GrantRecord, b: GrantRecord): boolean {
  // toRecord drops such principals and sorts permissions; the principals' order does not count.
  return isDeepStrictEqual(toRecord(toGrants(a)), toRecord(toGrants(b)));
}

function toGrants(record: GrantRecord): Grants {
  return new Map(Object.entries(record).map(([key, ps]) => [key, new Set(ps as Permission[])]));
}

/** Drops principals left without permissions, and sorts permissions so stored ACLs read the same way every time. */
function toRecord(grants: Grants): GrantRecord {
  const record: GrantRecord = {};
  for (const [key, permissions] of grants) if (permissions.size > 0) record[key] = [...permissions].sort();
  return record;
}
