/**
 * Who a caller is. A caller (`Identity`) has one subject, a user or anonymous,
 * and the principals ACLs can name: itself, its groups, "authenticated" for
 * its realm, and anonymous, which every caller also is (as in Nexus).
 */
export type Principal =
  | { type: 'Anonymous' }
  | { type: 'User'; realm: string; subject: string }
  | { type: 'Group'; realm: string; group: string }
  /** `realm` absent: any authenticated caller, whatever its realm. */
  | { type: 'Authenticated'; realm?: string };

export interface Identity {
  subject: Extract<Principal, { type: 'Anonymous' | 'User' }>;
  principals: Principal[];
}

export const ANONYMOUS: Identity = { subject: { type: 'Anonymous' }, principals: [{ type: 'Anonymous' }] };

export function userIdentity(realm: string, subject: string, groups: readonly string[]): Identity {
  const user = { type: 'User' as const, realm, subject };
  return {
    subject: user,
    principals: [
      user,
      ...groups.map((group) => ({ type: 'Group' as const, realm, group })),
      { type: 'Authenticated', realm },
      { type: 'Anonymous' },
    ],
  };
}

const REALM = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Principals as written in the auth file: `anonymous`, `authenticated`,
 * `{realm}/authenticated`, `{realm}/group/{group}` or `{realm}/{subject}`.
 * Returns null for anything else.
 */
export function parsePrincipal(text: string): Principal | null {
  if (text === 'anonymous') return { type: 'Anonymous' };
  if (text === 'authenticated') return { type: 'Authenticated' };
  const slash = text.indexOf('/');
  if (slash <= 0) return null;
  const realm = text.slice(0, slash);
  const rest = text.slice(slash + 1);
  if (!REALM.test(realm) || rest === '') return null;
  if (rest === 'authenticated') return { type: 'Authenticated', realm };
  if (rest.startsWith('group/')) {
    const group = rest.slice('group/'.length);
    return group === '' ? null : { type: 'Group', realm, group };
  }
  return { type: 'User', realm, subject: rest };
}

/** The inverse of `parsePrincipal`; also the key under which ACLs store a principal. */
export function principalKey(principal: Principal): string {
  switch (principal.type) {
    case 'Anonymous':
      return 'anonymous';
    case 'Authenticated':
      return principal.realm === undefined ? 'authenticated' : `${principal.realm}/authenticated`;
    case 'Group':
      return `${principal.realm}/group/${principal.group}`;
    case 'User':
      return `${principal.realm}/${principal.subject}`;
  }
}

/** The keys an ACL entry may use to grant something to this caller. */
export function grantKeysOf(identity: Identity): Set<string> {
  const keys = new Set(identity.principals.map(principalKey));
  if (identity.principals.some((p) => p.type === 'Authenticated')) keys.add('authenticated');
  return keys;
}

/** The Nexus JSON form of a principal, as in ACL payloads. */
export function principalJson(principal: Principal): Record<string, string> {
  const { type, ...fields } = principal;
  return { '@type': type, ...fields };
}

/** Reads the Nexus JSON form (or the auth-file string form); null when invalid. */
export function principalFromJson(value: unknown): Principal | null {
  if (typeof value === 'string') return parsePrincipal(value);
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const realm = typeof v.realm === 'string' && REALM.test(v.realm) ? v.realm : undefined;
  switch (v['@type']) {
    case 'Anonymous':
      return { type: 'Anonymous' };
    case 'Authenticated':
      if (v.realm !== undefined && realm === undefined) return null;
      return realm === undefined ? { type: 'Authenticated' } : { type: 'Authenticated', realm };
    case 'User':
      return realm !== undefined && typeof v.subject === 'string' && v.subject !== '' && !v.subject.startsWith('group/')
        ? { type: 'User', realm, subject: v.subject }
        : null;
    case 'Group':
      return realm !== undefined && typeof v.group === 'string' && v.group !== '' ? { type: 'Group', realm, group: v.group } : null;
    default:
      return null;
  }
}

/** The IRI of a principal, used in `_createdBy` / `_updatedBy`. */
export function principalIri(baseUri: string, principal: Principal): string {
  const e = encodeURIComponent;
  switch (principal.type) {
    case 'Anonymous':
      return `${baseUri}/v1/anonymous`;
    case 'User':
      return `${baseUri}/v1/realms/${e(principal.realm)}/users/${e(principal.subject)}`;
    case 'Group':
      return `${baseUri}/v1/realms/${e(principal.realm)}/groups/${e(principal.group)}`;
    case 'Authenticated':
      return principal.realm === undefined ? `${baseUri}/v1/authenticated` : `${baseUri}/v1/realms/${e(principal.realm)}/authenticated`;
  }
}
