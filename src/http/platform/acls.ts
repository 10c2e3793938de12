/**
 * /v1/acls[/{org}[/{project}]]: read and change the stored ACLs. Grants from
 * the auth file are shown (with `_source: "auth-file"`) but only the operator
 * changes them, by editing the file.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AclWrite, StoredAcl } from '../../platform/acls.js';
import { PlatformError } from '../../platform/errors.js';
import { auditFields } from '../../platform/audit.js';
import { ACLS_CONTEXT, METADATA_CONTEXT } from '../../platform/contexts.js';
import type { Platform } from '../../platform/index.js';
import { MAX_REVISION } from '../../platform/revisions.js';
import { type AclAddress, orgAddress, projectAddress } from '../../platform/refs.js';
import { typed } from '../typed.js';
import { callerOf } from './caller.js';
import { checkPreconditions, untagged } from './preconditions.js';
import { writersOnly } from './writers.js';
import { aclBodyErrorFormatter, aclEntries, aclListSchema, aclSchema, described, noQuery, orgParams, projectParams, requiredRevQuery, responses } from './schemas.js';

const PATHS = [
  { url: '/acls', params: undefined },
  { url: '/acls/', params: undefined },
  { url: '/acls/:org', params: orgParams },
  { url: '/acls/:org/:project', params: projectParams },
];

const zeroOrMoreRev = {
  ...noQuery,
  properties: {
    rev: described(
      { type: 'integer', minimum: 0, maximum: MAX_REVISION },
      "The ACL's current revision: 0 (the default) for one never written; a stale one is 409 IncorrectRev.",
    ),
  },
} as const;

/** Which ACL a route's path addresses, as each operation's description says. */
const ADDRESSED = 'The ACL on the address the path names (/ without org, /{org}, /{org}/{project}). ';
/** What an ACL write's body holds. */
const ENTRIES =
  "acl: entries of an identity (an auth-file principal such as 'local/alice' or a Nexus object: Anonymous, Authenticated, User, Group) and its permissions. ";

/**
 * The ACL's address from the path (/acls, /acls/{org} or /acls/{org}/{project}). The paths share their
 * handlers but not their params schema, so the params are typed here as the widest. The handlers read
 * them validated as labels; the write hook reads them before validation, where a segment that is no
 * label names an address holding no grant of its own (the permission is then that of its parents), and
 * the validation refuses it next.
 */
function addressOf(params: unknown): AclAddress {
  const { org, project } = (params ?? {}) as { org?: string; project?: string };
  if (org === undefined) return '/';
  return project === undefined ? orgAddress(org) : projectAddress({ org, project });
}

export async function aclRoutes(app: FastifyInstance, { platform }: { platform: Platform }): Promise<void> {
  const api = typed(app);
  const { acls, baseUri } = platform;
  /**
   * Throws 412 unless the request's preconditions hold for the stored ACL at `address`, for a caller who
   * may write it (else 403, as without them) and an ACL the write takes (else the write's refusal). It
   * exists once written (rev 1 on), emptied or not; auth-file grants are none of it.
   */
  const preconditionsOf = (request: FastifyRequest, address: AclAddress, write: AclWrite) =>
    checkPreconditions(request.headers, async () => {
      const stored = await acls.storedForWriter(callerOf(request), address, write);
      return stored === undefined ? null : untagged(stored);
    });
  /** Refuses a caller who may not write the ACL before the write's body is read. */
  const writers = writersOnly((request, caller) => acls.requireWriter(caller, addressOf(request.params)));
  const idOf = (address: AclAddress) => `${baseUri}/v1/acls${address === '/' ? '' : address}`;

  const writeJson = (address: AclAddress, acl: StoredAcl) => ({
    '@context': [ACLS_CONTEXT, METADATA_CONTEXT],
    '@id': idOf(address),
    '@type': 'AccessControlList',
    _path: address,
    _self: idOf(address),
    _rev: acl.rev,
    _deprecated: false,
    ...auditFields(acl, baseUri),
  });

  for (const { url, params } of PATHS) {
    const paramsSchema = params ? { params } : {};

    api.get(
      url,
      {
        schema: {
          summary: 'List the grants of an ACL',
          description:
            `${ADDRESSED}Grants of the auth file are listed with _source auth-file, stored ones with _source store and their revision. ` +
            'Needs acls/read on the address for self=false; the caller\'s own grants need no permission.',
          ...paramsSchema,
          querystring: {
            ...noQuery,
            properties: {
              ancestors: described(
                { type: 'boolean' },
                "true: the ancestors' ACLs too (/ and /{org}), root first; with self=false only those where the caller holds acls/read. Default false.",
              ),
              self: described({ type: 'boolean' }, "true (default): only the grants of the caller's identities; false: every identity's, which needs acls/read."),
            },
          },
          response: responses(aclListSchema, 200),
        },
      },
      async (request) => {
        const acls = platform.acls.list(addressOf(request.params), callerOf(request), request.query.self ?? true, request.query.ancestors ?? false);
        const results = acls.map((acl) => ({ '@id': idOf(acl.address), '@type': 'AccessControlList', _path: acl.address, _source: acl.source, _rev: acl.rev, acl: acl.acl }));
        return { '@context': [ACLS_CONTEXT, METADATA_CONTEXT], _total: results.length, _results: results };
      },
    );

    api.put(
      url,
      {
        bodyLimit: 256 * 1024,
        preParsing: writers,
        schemaErrorFormatter: aclBodyErrorFormatter,
        schema: {
          summary: 'Replace the grants of an ACL',
          description:
            `${ADDRESSED}${ENTRIES}Replaces the stored grants (201 for an ACL written from revision 0, else 200); ` +
            'auth-file grants stay. An ACL may sit on a path that does not exist yet. Needs acls/write.',
          ...paramsSchema,
          querystring: zeroOrMoreRev,
          body: { type: 'object', required: ['acl'], additionalProperties: false, properties: { acl: aclEntries } },
          response: responses(aclSchema, 200, 201),
        },
      },
      async (request, reply) => {
        const address = addressOf(request.params);
        const rev = request.query.rev ?? 0;
        await preconditionsOf(request, address, { kind: 'replace', rev });
        const acl = await sayingRevLeftOut(request.query.rev, () => acls.replace(address, request.body.acl, rev, callerOf(request)));
        return reply.code(rev === 0 ? 201 : 200).send(writeJson(address, acl));
      },
    );

    api.patch(
      url,
      {
        bodyLimit: 256 * 1024,
        preParsing: writers,
        schemaErrorFormatter: aclBodyErrorFormatter,
        schema: {
          summary: 'Append grants to an ACL, or subtract them',
          description:
            `${ADDRESSED}${ENTRIES}@type Append adds the grants, Subtract removes them; one that changes nothing is 400 NothingToBeUpdated, ` +
            'a Subtract where no ACL was ever written 404 AclNotFound. Needs acls/write.',
          ...paramsSchema,
          querystring: zeroOrMoreRev,
          body: {
            type: 'object',
            required: ['@type', 'acl'],
            additionalProperties: false,
            properties: { '@type': { enum: ['Append', 'Subtract'] }, acl: aclEntries },
          },
          response: responses(aclSchema, 200),
        },
      },
      async (request) => {
        const identity = callerOf(request);
        const address = addressOf(request.params);
        const rev = request.query.rev ?? 0;
        const appends = request.body['@type'] === 'Append';
        await preconditionsOf(request, address, { kind: appends ? 'append' : 'subtract', rev });
        const { acl: entries } = request.body;
        const acl = await sayingRevLeftOut(request.query.rev, () => (appends ? acls.append(address, entries, rev, identity) : acls.subtract(address, entries, rev, identity)));
        return writeJson(address, acl);
      },
    );

    api.delete(
      url,
      {
        preParsing: writers,
        schema: {
          summary: 'Empty an ACL',
          description:
            `${ADDRESSED}Removes every stored grant in a new revision; auth-file grants stay. An empty ACL is 400 AclIsEmpty, ` +
            'one never written 404 AclNotFound. Needs acls/write.',
          ...paramsSchema,
          querystring: requiredRevQuery,
          response: responses(aclSchema, 200),
        },
      },
      async (request) => {
        const address = addressOf(request.params);
        await preconditionsOf(request, address, { kind: 'delete', rev: request.query.rev });
        return writeJson(address, await acls.delete(address, request.query.rev, callerOf(request)));
      },
    );
  }
}

/**
 * An ACL write without `rev` stands for revision 0 (a new ACL), as in Nexus. Refused on an existing ACL, the
 * reference's "Incorrect revision '0' provided" named a revision the caller never sent: the reason says so.
 */
async function sayingRevLeftOut<T>(given: number | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (given !== undefined || !(error instanceof PlatformError) || error.type !== 'IncorrectRev') throw error;
    throw new PlatformError(error.status, error.type, `${error.reason} No rev was given, which stands for 0 (a new ACL): give the ACL's current revision as ?rev=.`, error.details);
  }
}
