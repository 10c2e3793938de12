/**
 * The auth file: bearer tokens and the ACLs the operator configures.
 *
 *   {"tokens": {"<token>": {"realm": "local", "subject": "alice", "groups": ["team"]}},
 *    "acls": {"/": {"anonymous": ["resources/read"], "local/alice": ["*"]}}}
 *
 * Tokens are kept only as SHA-256 digests, so a lookup never compares the
 * secret itself character by character. An optional "oidc" section accepts
 * JWTs from an identity provider (see oidc.ts).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { type Identity, OPERATOR_REALM, isOperatorRealm, isReservedSubject, nameProblem, parsePrincipal, principalKey, printableName, userIdentity } from './identities.js';
import { ALL_PERMISSIONS, isPermission } from './permissions.js';
import { parseAclAddress } from './refs.js';
import { readOperatorJson } from './operator-json.js';
import { type OidcConfig, parseOidcConfig } from './oidc.js';
import { type RepeatedKey, repeatedKeys } from '../text/repeated-keys.js';

export class AuthFileError extends Error {}

/** Named in start errors, as the other settings' errors name theirs. */
const SETTING = '--auth-file / AUTH_FILE';

/** ACL grants: address -> principal key -> permissions (`*` kept as is). */
export type AclGrants = Map<string, Map<string, Set<string>>>;

export interface AuthConfig {
  tokens: Map<string, Identity>;
  acls: AclGrants;
  oidc: OidcConfig | null;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** With no auth file, anonymous may read everything and nothing else is allowed. */
export function anonymousReadOnly(): AuthConfig {
  return { tokens: new Map(), acls: new Map([['/', new Map([['anonymous', new Set(['resources/read'])]])]]), oidc: null };
}

export function loadAuthFile(file: string): AuthConfig {
  const read = readOperatorJson(file);
  if ('unreadable' in read) throw new AuthFileError(`auth file ${file} (${SETTING}) cannot be read: ${read.unreadable.message}`);
  if ('notJson' in read) throw new AuthFileError(`auth file ${file} (${SETTING}) is not valid JSON: ${read.notJson}`);
  const { text, json: raw } = read;
  // JSON.parse keeps the last of a key given twice: a token pasted twice would silently belong to the second entry.
  const repeated = repeatedKeys(text)[0];
  if (repeated) throw new AuthFileError(`auth file ${file} (${SETTING}) is invalid:\n  ${repeatedKeyProblem(repeated)}`);
  const problems: string[] = [];
  const config = parseAuthConfig(raw, problems, path.dirname(path.resolve(file)));
  if (problems.length > 0) throw new AuthFileError(`auth file ${file} (${SETTING}) is invalid:\n  ${problems.join('\n  ')}`);
  return config;
}

/** A key given twice, named as the file's other problems name things: a token by its first characters only. */
function repeatedKeyProblem({ path: where, key }: RepeatedKey): string {
  if (where === 'tokens') return `token "${printableName(key.slice(0, 4))}…" is given twice; JSON keeps only the last entry, so a token means one identity`;
  return `${where === '' ? 'the top level' : `"${where}"`} gives the key "${printableName(key)}" twice; JSON keeps only the last`;
}

/** `baseDir` resolves relative paths in the file (the OIDC key set). */
export function parseAuthConfig(raw: unknown, problems: string[], baseDir = '.'): AuthConfig {
  const config: AuthConfig = { tokens: new Map(), acls: new Map(), oidc: null };
  if (!isObject(raw)) {
    problems.push('the top level must be an object with "tokens" and "acls"');
    return config;
  }
  for (const key of Object.keys(raw)) if (key !== 'tokens' && key !== 'acls' && key !== 'oidc') problems.push(`unknown field "${key}"`);
  if (raw.oidc !== undefined) config.oidc = parseOidcConfig(raw.oidc, baseDir, problems);
  const tokens = raw.tokens ?? {};
  if (!isObject(tokens)) problems.push('"tokens" must be an object');
  else for (const [token, entry] of Object.entries(tokens)) parseToken(token, entry, config, problems);
  refuseSharedRealm(config, problems);
  const acls = raw.acls ?? {};
  if (!isObject(acls)) problems.push('"acls" must be an object');
  else for (const [address, grants] of Object.entries(acls)) parseAcl(address, grants, config, problems);
  return config;
}

function parseToken(token: string, entry: unknown, config: AuthConfig, problems: string[]): void {
  const where = `token "${printableName(token.slice(0, 4))}…"`;
  if (token.length < 8) problems.push(`${where}: tokens must be at least 8 characters long`);
  // A bearer token is one run of visible ASCII in the header: any other token could never be presented.
  if (!/^[\x21-\x7e]*$/.test(token)) problems.push(`${where}: tokens may hold only visible ASCII characters (no spaces), as an Authorization header carries them`);
  if (!isObject(entry)) return void problems.push(`${where}: must be an object with realm, subject and groups`);
  const { realm, subject, groups = [] } = entry;
  if (typeof realm !== 'string' || typeof subject !== 'string') return void problems.push(`${where}: realm and subject must be strings`);
  if (!Array.isArray(groups) || !groups.every((g) => typeof g === 'string' && g !== '')) {
    return void problems.push(`${where}: groups must be an array of non-empty strings`);
  }
  if (isReservedSubject(subject)) return void problems.push(`${where}: the subject "${subject}" is reserved (it names every user of a realm, a group or anonymous)`);
  if (isOperatorRealm(realm)) return void problems.push(`${where}: the realm "${realm}" is reserved for the operator (${OPERATOR_REALM}/system in _createdBy and audit)`);
  const subjectProblem = nameProblem(subject);
  if (subjectProblem !== null) return void problems.push(`${where}: the subject "${printableName(subject)}" ${subjectProblem}`);
  const badGroup = (groups as string[]).find((group) => nameProblem(group) !== null);
  if (badGroup !== undefined) return void problems.push(`${where}: the group "${printableName(badGroup)}" ${nameProblem(badGroup)}`);
  const user = parsePrincipal(`${realm}/${subject}`);
  if (user?.type !== 'User') return void problems.push(`${where}: "${realm}/${subject}" is not a valid realm and subject`);
  config.tokens.set(tokenDigest(token), userIdentity(realm, subject, groups as string[]));
}

/**
 * A realm names one source of users: were the identity provider's realm also a realm of file tokens,
 * whoever the provider lets call itself `admin` would be the file's `admin`, with its grants.
 */
function refuseSharedRealm(config: AuthConfig, problems: string[]): void {
  const oidcRealm = config.oidc?.realm;
  if (oidcRealm === undefined) return;
  const shared = [...config.tokens.values()].some((identity) => identity.subject.type === 'User' && identity.subject.realm === oidcRealm);
  if (shared) problems.push(`oidc: the realm "${oidcRealm}" is also the realm of file tokens; give the identity provider a realm of its own`);
}

function parseAcl(address: string, grants: unknown, config: AuthConfig, problems: string[]): void {
  if (parseAclAddress(address) === null) return void problems.push(`acl "${address}": addresses are "/", "/org" or "/org/project"`);
  if (!isObject(grants)) return void problems.push(`acl "${address}": must map principals to permission lists`);
  const entries = new Map<string, Set<string>>();
  for (const [who, permissions] of Object.entries(grants)) {
    const principal = parsePrincipal(who);
    if (principal === null) {
      const whoProblem = nameProblem(who);
      problems.push(`acl "${address}": "${printableName(who)}" ${whoProblem ?? 'is not anonymous, authenticated, realm/subject or realm/group/name'}`);
      continue;
    }
    if (!Array.isArray(permissions) || !permissions.every((p) => typeof p === 'string')) {
      problems.push(`acl "${address}", "${who}": permissions must be an array of strings`);
      continue;
    }
    const unknown = permissions.filter((p) => p !== ALL_PERMISSIONS && !isPermission(p));
    if (unknown.length > 0) problems.push(`acl "${address}", "${who}": unknown permissions ${unknown.join(', ')}`);
    entries.set(principalKey(principal), new Set(permissions as string[]));
  }
  config.acls.set(address, entries);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
