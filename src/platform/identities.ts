/**
 * Who a caller is. A caller (`Identity`) has one subject, a user or anonymous,
 * and the principals ACLs can name: itself, its groups, "authenticated" for
 * its realm, and anonymous, which every caller also is (as in Nexus).
 */
import { UNSAFE_IN_IDENTITIES } from './unsafe-characters.js';

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

/**
 * The realm of the operator's identity. It is the operator's alone: a token or an identity provider
 * with this realm (in any case) could name a user that reads as the operator in `_createdBy` and audit.
 */
export const OPERATOR_REALM = 'internal';

/**
 * The operator acting on the store directly (set-up at start, seeding by tests and benchmarks):
 * it holds every permission. The ACL check recognises this very object; no token maps to it.
 */
export const OPERATOR: Identity = Object.freeze({
  subject: Object.freeze({ type: 'User' as const, realm: OPERATOR_REALM, subject: 'system' }),
  principals: [],
});

export function isOperatorRealm(realm: string): boolean {
  return realm.toLowerCase() === OPERATOR_REALM;
}

/**
 * Why a user subject or group name is refused, or null when it is usable: the one check of every
 * source of names (auth-file tokens and grants, OIDC tokens, ACL writes).
 */
export function nameProblem(name: string): string | null {
  const refused = [...new Set(name.match(UNSAFE_IN_IDENTITIES) ?? [])];
  if (refused.length > 0) return `holds ${refused.map(codePointOf).join(', ')}: control, bidirectional and invisible characters (and lone surrogates) are not allowed in names`;
  // 'alice ' and 'alice' look the same in a listing.
  if (/^\s|\s$/u.test(name)) return 'starts or ends with white space, which listings and logs do not show';
  return null;
}

/** The name with its refused characters written as code points, so that a message quoting it is not ambiguous itself. */
export function printableName(name: string): string {
  return name.replace(UNSAFE_IN_IDENTITIES, (c) => `<${codePointOf(c)}>`);
}

function codePointOf(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

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
 * User subjects that read as another kind of principal in the auth-file form
 * (`local/authenticated` is every user of realm `local`): no user may be named so.
 */
const RESERVED_SUBJECTS: readonly string[] = ['authenticated', 'anonymous'];

export function isReservedSubject(subject: string): boolean {
  return RESERVED_SUBJECTS.includes(subject) || subject.startsWith('group/');
}

/**
 * Principals as written in the auth file: `anonymous`, `authenticated`,
 * `{realm}/authenticated`, `{realm}/group/{group}` or `{realm}/{subject}`.
 * Returns null for anything else, reserved subjects and names `nameProblem` refuses included.
 */
export function parsePrincipal(text: string): Principal | null {
  if (text === 'anonymous') return { type: 'Anonymous' };
  if (text === 'authenticated') return { type: 'Authenticated' };
  const slash = text.indexOf('/');
  if (slash <= 0) return null;
  const realm = text.slice(0, slash);
  const rest = text.slice(slash + 1);
  if (!REALM.test(realm) || rest === '' || nameProblem(rest) !== null) return null;
  if (rest === 'authenticated') return { type: 'Authenticated', realm };
  if (rest.startsWith('group/')) {
    const group = rest.slice('group/'.length);
    return group === '' ? null : { type: 'Group', realm, group };
  }
  return rest === 'anonymous' ? null : { type: 'User', realm, subject: rest };
}

/**
 * The key under which ACLs store a principal. Keys are typed (`user:{realm}:{subject}`,
 * `group:{realm}:{group}`, `authenticated[:{realm}]`, `anonymous`; realms never contain
 * `:`), so no user can ever share a key with a group, a realm or anonymous.
 */
export function principalKey(principal: Principal): string {
  switch (principal.type) {
    case 'Anonymous':
      return 'anonymous';
    case 'Authenticated':
      return principal.realm === undefined ? 'authenticated' : `authenticated:${principal.realm}`;
    case 'Group':
      return `group:${principal.realm}:${principal.group}`;
    case 'User':
      return `user:${principal.realm}:${principal.subject}`;
  }
}

const TYPED_KEY = /^(user|group):([A-Za-z0-9_.-]{1,64}):(.+)$|^authenticated:([A-Za-z0-9_.-]{1,64})$|^(anonymous|authenticated)$/s;

/** The inverse of `principalKey`; null for anything else. */
export function principalOfKey(key: string): Principal | null {
  const match = TYPED_KEY.exec(key);
  if (!match) return null;
  const [, kind, realm, name, authenticatedRealm, bare] = match;
  if (bare === 'anonymous') return { type: 'Anonymous' };
  if (bare === 'authenticated') return { type: 'Authenticated' };
  if (authenticatedRealm !== undefined) return { type: 'Authenticated', realm: authenticatedRealm };
  return kind === 'user' ? { type: 'User', realm: realm!, subject: name! } : { type: 'Group', realm: realm!, group: name! };
}

/**
 * Keys written before keys were typed were the auth-file form (`local/alice`); a realm has no
 * `:`, so an untyped key never has one before its first `/`. Returns the typed key, or null.
 */
export function typedKeyOf(key: string): string | null {
  if (principalOfKey(key) !== null) return key;
  const principal = parsePrincipal(key);
  return principal === null ? null : principalKey(principal);
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

/**
 * The `@type` an identity written without one stands for, as Nexus reads it from its fields (its own ACL examples
 * write `{"realm": …, "group": …}`): a subject is a User, a group a Group, a realm alone Authenticated. An empty
 * object is not taken for Anonymous: a grant to everyone is written so.
 */
function typeOfUntyped(v: Record<string, unknown>): string | undefined {
  if (v.realm === undefined) return undefined;
  if (v.subject !== undefined) return v.group === undefined ? 'User' : undefined;
  return v.group !== undefined ? 'Group' : 'Authenticated';
}

/** Reads the Nexus JSON form (or the auth-file string form); null when invalid. */
export function principalFromJson(value: unknown): Principal | null {
  if (typeof value === 'string') return parsePrincipal(value);
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const realm = typeof v.realm === 'string' && REALM.test(v.realm) ? v.realm : undefined;
  switch (v['@type'] ?? typeOfUntyped(v)) {
    case 'Anonymous':
      return { type: 'Anonymous' };
    case 'Authenticated':
      if (v.realm !== undefined && realm === undefined) return null;
      return realm === undefined ? { type: 'Authenticated' } : { type: 'Authenticated', realm };
    case 'User':
      return realm !== undefined && typeof v.subject === 'string' && v.subject !== '' && nameProblem(v.subject) === null && !isReservedSubject(v.subject)
        ? { type: 'User', realm, subject: v.subject }
        : null;
    case 'Group':
      return realm !== undefined && typeof v.group === 'string' && v.group !== '' && nameProblem(v.group) === null ? { type: 'Group', realm, group: v.group } : null;
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
