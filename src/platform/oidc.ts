/**
 * Optional OIDC identities: bearer tokens that are JWTs signed by an identity
 * provider, verified with jose against the provider's JSON Web Key Set. The
 * key set is a file (or inline in the auth file), never fetched: the server
 * must work air-gapped, and an operator refreshes the file on key rotation.
 *
 *   "oidc": {"realm": "sso", "issuer": "https://sso.example/realms/lab",
 *            "jwks": "sso-keys.json", "audience": "litserve",
 *            "subjectClaim": "preferred_username", "groupsClaim": "groups"}
 *
 * A verified token is the user `{realm}/{subject}` with groups
 * `{realm}/group/{name}`, named in ACLs like the auth file's users.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import path from 'node:path';
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { readOperatorJson } from './operator-json.js';
import { type Identity, OPERATOR_REALM, isOperatorRealm, nameProblem, parsePrincipal, userIdentity } from './identities.js';

export interface OidcConfig {
  realm: string;
  issuer: string;
  audience: string | null;
  subjectClaim: string;
  groupsClaim: string;
  /** Seconds ahead a token's `exp` may lie, or null for no bound (`maxTokenLifetime`). */
  maxTokenLifetime: number | null;
  keys: JSONWebKeySet;
}

/** Verifies a JWT: the caller it names, or a reason it is refused. */
type OidcVerifier = (token: string) => Promise<Identity | { refused: string }>;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** How far the provider's clock may be from ours when `exp`, `nbf` and `iat` are checked. */
export const CLOCK_SKEW_SECONDS = 30;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/**
 * `ignoredGroups` hears of a token whose groups claim is there but not a list (a text, say): its holder gets no
 * group. Refusing such tokens would lock out every user of a provider configured so; the operator is told instead.
 */
export function oidcVerifier(config: OidcConfig, ignoredGroups: (claim: string, value: unknown) => void = () => {}): OidcVerifier {
  const keys = createLocalJWKSet(config.keys);
  return async (token) => {
    if (!isCanonicallyEncoded(token)) return { refused: 'the token is not canonically base64url-encoded' };
    let payload: JWTPayload;
    try {
      // A token without an expiry would be valid forever once leaked: `exp` is required.
      ({ payload } = await jwtVerify(token, keys, {
        issuer: config.issuer,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_SKEW_SECONDS,
        ...(config.audience !== null && { audience: config.audience }),
      }));
    } catch (error) {
      return { refused: refusalOf(error) };
    }
    const now = Date.now() / 1000;
    // jose checks `iat` only against a maximum token age; a token issued in the future is as suspect as one not yet valid.
    if (typeof payload.iat === 'number' && payload.iat > now + CLOCK_SKEW_SECONDS) {
      return { refused: 'the token\'s "iat" claim is in the future' };
    }
    // A token valid for years is a leaked password that cannot be changed; the operator may bound how far ahead `exp` lies.
    if (config.maxTokenLifetime !== null && payload.exp! > now + config.maxTokenLifetime + CLOCK_SKEW_SECONDS) {
      return { refused: `the token is valid for more than ${config.maxTokenLifetime} s ahead ("exp" claim), the most this server accepts (maxTokenLifetime)` };
    }
    const subject = payload[config.subjectClaim];
    if (typeof subject !== 'string' || parsePrincipal(`${config.realm}/${subject}`)?.type !== 'User') {
      return { refused: `the token's "${config.subjectClaim}" claim is not a usable user name: it ${subjectProblem(subject)}` };
    }
    const claimed = payload[config.groupsClaim];
    if (claimed !== undefined && !Array.isArray(claimed)) ignoredGroups(config.groupsClaim, claimed);
    // Keycloak writes groups as paths ("/team"); a group is named without the slash. A group no ACL
    // may name (an unusable name) grants nothing, so it is left out rather than refusing its members.
    const groups = Array.isArray(claimed) ? claimed.filter((g): g is string => typeof g === 'string').map((g) => g.replace(/^\/+/, '')) : [];
    return userIdentity(config.realm, subject, groups.filter((g) => g !== '' && nameProblem(g) === null));
  };
}

/** Why a subject claim names no user: the identity provider's operator must know what to change. */
function subjectProblem(subject: unknown): string {
  if (subject === undefined) return 'is missing';
  if (typeof subject !== 'string') return `is ${subject === null ? 'null' : Array.isArray(subject) ? 'a list' : `a ${typeof subject}`}, not a text`;
  if (subject === '') return 'is empty';
  const problem = nameProblem(subject);
  if (problem !== null) return problem;
  if (subject.startsWith('group/')) return `starts with "group/", which names groups in ACLs`;
  return `is "${subject}", which names ${subject === 'anonymous' ? 'callers without a token' : 'every caller with a token'} in ACLs`;
}

/**
 * Base64url leaves unused low bits in a segment's last character, which decoders ignore: without this
 * check one signed token could be written several ways, each a distinct token to the rate limit.
 */
function isCanonicallyEncoded(token: string): boolean {
  return token.split('.').every((segment) => Buffer.from(segment, 'base64url').toString('base64url') === segment);
}

function refusalOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'exp' && error.reason === 'missing') {
    return 'the token has no expiry ("exp" claim), and tokens that never expire are not accepted';
  }
  if (error instanceof errors.JWTClaimValidationFailed) return `the token's "${error.claim}" claim is not accepted`;
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token was not signed by a known key';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  return 'the token is not a valid signed JWT';
}

/**
 * How far ahead a token's `exp` may lie when the section does not say (`maxTokenLifetime`; `null` for no
 * bound): a day, the longest lifetime common providers issue by default (Auth0; Keycloak, Entra ID and
 * Google issue minutes to an hour). A token valid for years, leaked once, would otherwise stay good.
 */
export const DEFAULT_MAX_TOKEN_LIFETIME = 86_400;

/** Reads the `oidc` section of the auth file; `problems` collects what is wrong with it. */
export function parseOidcConfig(raw: unknown, authFileDir: string, problems: string[]): OidcConfig | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push('"oidc" must be an object with realm, issuer and jwks');
    return null;
  }
  const section = raw as Record<string, unknown>;
  for (const key of Object.keys(section)) {
    if (!['realm', 'issuer', 'jwks', 'audience', 'subjectClaim', 'groupsClaim', 'maxTokenLifetime'].includes(key)) problems.push(`oidc: unknown field "${key}"`);
  }
  const { realm, issuer, jwks, audience = null, subjectClaim = 'sub', groupsClaim = 'groups', maxTokenLifetime = DEFAULT_MAX_TOKEN_LIFETIME } = section;
  if (typeof realm !== 'string' || parsePrincipal(`${realm}/authenticated`)?.type !== 'Authenticated') problems.push('oidc: "realm" must be a realm name');
  else if (isOperatorRealm(realm)) {
    problems.push(`oidc: the realm "${realm}" is reserved for the operator (${OPERATOR_REALM}/system in _createdBy and audit); give the identity provider a realm of its own`);
  }
  if (typeof issuer !== 'string' || issuer === '') problems.push('oidc: "issuer" must be the issuer URL the tokens carry');
  // An empty audience would make every token's "aud" check fail: no token could ever be accepted.
  if (audience !== null && (typeof audience !== 'string' || audience.trim() === '')) problems.push('oidc: "audience" must be a non-empty string (or left out)');
  if (typeof subjectClaim !== 'string' || typeof groupsClaim !== 'string') problems.push('oidc: "subjectClaim" and "groupsClaim" must be claim names');
  if (maxTokenLifetime !== null && !(Number.isSafeInteger(maxTokenLifetime) && (maxTokenLifetime as number) > 0)) {
    problems.push('oidc: "maxTokenLifetime" must be a positive whole number of seconds, or null for no bound');
  }
  const keys = readKeySet(jwks, authFileDir, problems);
  if (problems.length > 0 || keys === null) return null;
  return {
    realm: realm as string,
    issuer: issuer as string,
    audience: audience as string | null,
    subjectClaim: subjectClaim as string,
    groupsClaim: groupsClaim as string,
    maxTokenLifetime: maxTokenLifetime as number | null,
    keys,
  };
}

function readKeySet(jwks: unknown, authFileDir: string, problems: string[]): JSONWebKeySet | null {
  let set: unknown = jwks;
  if (typeof jwks === 'string') {
    const file = path.resolve(authFileDir, jwks);
    const read = readOperatorJson(file);
    if ('unreadable' in read) {
      problems.push(`oidc: the key set file ${file} cannot be read: ${whyUnreadable(read.unreadable)}`);
      return null;
    }
    if ('notJson' in read) {
      problems.push(`oidc: the key set file ${file} is not JSON: ${read.notJson}`);
      return null;
    }
    set = read.json;
  }
  const keys = (set as { keys?: unknown } | null)?.keys;
  if (Array.isArray(keys) && keys.length === 0) {
    problems.push('oidc: the key set of "jwks" holds no key: a token could never be verified');
    return null;
  }
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'object' && k !== null)) {
    problems.push('oidc: "jwks" must be a JSON Web Key Set ({"keys": [...]}) or the path of a file holding one');
    return null;
  }
  const before = problems.length;
  keys.forEach((key: Record<string, unknown>, index) => {
    const problem = publicKeyProblem(key);
    if (problem !== null) problems.push(`oidc: key ${index}${typeof key.kid === 'string' ? ` ("${key.kid}")` : ''} of "jwks" ${problem}`);
  });
  return problems.length === before ? (set as JSONWebKeySet) : null;
}

/** Why the key set file cannot be read, in the words the command's own file checks use (command-files.ts). */
function whyUnreadable(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'no such file';
  if (error.code === 'EACCES') return 'not readable (permission denied)';
  if (error.code === 'EISDIR') return 'a folder, not a file';
  return error.message;
}

/**
 * Checked at start, so a broken key set stops the server with its reason instead of refusing every
 * token later as "not a valid signed JWT". Only public keys: a private or shared (`oct`) key in this
 * file would let whoever reads it sign tokens.
 */
function publicKeyProblem(key: Record<string, unknown>): string | null {
  if (key.kty === 'oct') return 'is a shared secret (kty "oct"); only the provider\'s public keys are accepted';
  if ('d' in key) return 'holds a private key ("d"); give only the public key';
  try {
    createPublicKey({ key: key as JsonWebKey, format: 'jwk' });
    return null;
  } catch (error) {
    return `is not a usable public key: ${(error as Error).message}`;
  }
}
