/**
 * ACL payload entries (`{"identity": ..., "permissions": [...]}`) as grants, and
 * stored or configured grants as listed ACLs. Every problem of a payload's
 * entries is reported at once.
 */
import { rejections } from './errors.js';
import { isReservedSubject, nameProblem, principalFromJson, principalJson, principalKey, principalOfKey, printableName } from './identities.js';
import { type Permission, isPermission } from './permissions.js';
import type { AclAddress } from './refs.js';

export interface AclEntryInput {
  identity: unknown;
  permissions: string[];
}

/** principal key -> permissions, the form of an ACL change. */
export type Grants = Map<string, Set<Permission>>;

/**
 * The grants of a change of the ACL at `address`. As in Nexus, a change names at least one entry and
 * every entry at least one permission: one without any would grant or take away nothing.
 */
export function grantsOf(address: AclAddress, entries: readonly AclEntryInput[]): Grants {
  const problems: string[] = [];
  const unknown = new Set<string>();
  const grants: Grants = new Map();
  entries.forEach((entry, index) => {
    const principal = principalFromJson(entry.identity);
    const { subject, group } = (entry.identity ?? {}) as { subject?: unknown; group?: unknown };
    if (principal === null && typeof subject === 'string' && isReservedSubject(subject)) {
      problems.push(`acl[${index}]: the user subject '${subject}' is reserved: it would name every user of the realm, a group or anonymous.`);
      return;
    }
    const name = typeof subject === 'string' ? subject : group;
    const problem = principal === null && typeof name === 'string' ? nameProblem(name) : null;
    if (problem !== null) {
      problems.push(`acl[${index}]: the name '${printableName(name as string)}' ${problem}.`);
      return;
    }
    if (principal === null) {
      problems.push(`acl[${index}]: 'identity' is not a valid Anonymous, Authenticated, User or Group identity.`);
      return;
    }
    const permissions = grants.get(principalKey(principal)) ?? new Set<Permission>();
    for (const p of entry.permissions) {
      if (isPermission(p)) permissions.add(p);
      else unknown.add(p);
    }
    grants.set(principalKey(principal), permissions);
  });
  if (problems.length > 0) throw rejections.decodingFailed(problems);
  if (unknown.size > 0) throw rejections.unknownPermissions([...unknown]);
  if (entries.length === 0 || entries.some((entry) => entry.permissions.length === 0)) throw rejections.aclCannotContainEmptyPermissionCollection(address);
  return grants;
}

export interface ListedAcl {
  address: AclAddress;
  /** `auth-file` or `store` */
  source: string;
  rev: number;
  acl: { identity: Record<string, string>; permissions: string[] }[];
}

/** One listed ACL, or none when `keep` leaves no principal in it. */
export function listed(address: AclAddress, grants: Iterable<[string, Iterable<string>]>, source: string, rev: number, keep: (key: string) => boolean): ListedAcl[] {
  const acl = [...grants]
    .filter(([key]) => keep(key))
    .map(([key, permissions]) => ({ identity: principalJson(principalOfKey(key)!), permissions: [...permissions].sort() }));
  return acl.length === 0 ? [] : [{ address, source, rev, acl }];
}
