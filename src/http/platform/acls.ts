/**
 * /v1/acls[/{org}[/{project}]]: read and change the stored ACLs. Grants from
 * the auth file are shown (with `_source: "auth-file"`) but only the operator
 * changes them, by editing the file.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StoredAcl } from '../../platform/acls.ts';
import { auditFields } from '../../platform/audit.ts';
import { ACLS_CONTEXT, METADATA_CONTEXT } from '../../platform/contexts.ts';
import { rejections } from '../../platform/errors.ts';
import { grantKeysOf, isReservedSubject, principalFromJson, principalJson, principalKey, principalOfKey } from '../../platform/identities.ts';
import type { Platform } from '../../platform/index.ts';
import { type Permission, isPermission } from '../../platform/permissions.ts';
import { type AclAddress, addressChain } from '../../platform/refs.ts';
import { callerOf } from './caller.ts';
import { aclEntries, aclListSchema, aclSchema, errorResponses, orgParams, projectParams, requiredRevQuery } from './schemas.ts';

interface AclRoute {
  Params: { org?: string; project?: string };
}

interface AclEntryInput {
  identity: unknown;
  permissions: string[];
}

const PATHS = [
  { url: '/acls', params: undefined },
  { url: '/acls/', params: undefined },
  { url: '/acls/:org', params: orgParams },
  { url: '/acls/:org/:project', params: projectParams },
];

const zeroOrMoreRev = { type: 'object', properties: { rev: { type: 'integer', minimum: 0, maximum: 2 ** 31 } } } as const;

function addressOf(request: FastifyRequest<AclRoute>): AclAddress {
  const { org, project } = request.params;
  if (org === undefined) return '/';
  return project === undefined ? `/${org}` : `/${org}/${project}`;
}

/** Turns ACL entries of a payload into grants; all problems are reported at once. */
function grantsOf(entries: AclEntryInput[]): Map<string, Set<Permission>> {
  const problems: string[] = [];
  const unknown = new Set<string>();
  const grants = new Map<string, Set<Permission>>();
  entries.forEach((entry, index) => {
    const principal = principalFromJson(entry.identity);
    const subject = (entry.identity as { subject?: unknown } | null)?.subject;
    if (principal === null && typeof subject === 'string' && isReservedSubject(subject)) {
      problems.push(`acl[${index}]: the user subject '${subject}' is reserved: it would name every user of the realm, a group or anonymous.`);
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
  return grants;
}

export async function aclRoutes(app: FastifyInstance, { platform }: { platform: Platform }): Promise<void> {
  const { acls, baseUri } = platform;
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

  /** One listed ACL; `keep` filters principal keys (the caller's own, for `self=true`). */
  const listed = (address: AclAddress, grants: Iterable<[string, Iterable<string>]>, source: string, rev: number, keep: (key: string) => boolean) => {
    const acl = [...grants]
      .filter(([key]) => keep(key))
      .map(([key, permissions]) => ({ identity: principalJson(principalOfKey(key)!), permissions: [...permissions].sort() }));
    return acl.length === 0 ? [] : [{ '@id': idOf(address), '@type': 'AccessControlList', _path: address, _source: source, _rev: rev, acl }];
  };

  for (const { url, params } of PATHS) {
    const paramsSchema = params ? { params } : {};

    app.get<AclRoute & { Querystring: { ancestors?: boolean; self?: boolean } }>(
      url,
      {
        schema: {
          ...paramsSchema,
          querystring: { type: 'object', properties: { ancestors: { type: 'boolean' }, self: { type: 'boolean' } } },
          response: { 200: aclListSchema, ...errorResponses },
        },
      },
      async (request) => {
        const identity = callerOf(request);
        const address = addressOf(request);
        const onlyOwn = request.query.self ?? true;
        if (!onlyOwn) acls.require(identity, 'acls/read', address);
        const own = grantKeysOf(identity);
        const keep = (key: string) => !onlyOwn || own.has(key);
        // With self=false, ancestors are listed only where the caller may read ACLs too.
        const addresses = (request.query.ancestors ? addressChain(address).reverse() : [address]).filter((at) => onlyOwn || acls.has(identity, 'acls/read', at));
        const results = addresses.flatMap((at) => {
          const stored = acls.stored(at);
          return [
            ...listed(at, acls.configuredAt(at) ?? [], 'auth-file', 0, keep),
            ...(stored ? listed(at, Object.entries(stored.grants), 'store', stored.rev, keep) : []),
          ];
        });
        return { '@context': [ACLS_CONTEXT, METADATA_CONTEXT], _total: results.length, _results: results };
      },
    );

    app.put<AclRoute & { Querystring: { rev?: number }; Body: { acl: AclEntryInput[] } }>(
      url,
      {
        bodyLimit: 256 * 1024,
        schema: {
          ...paramsSchema,
          querystring: zeroOrMoreRev,
          body: { type: 'object', required: ['acl'], additionalProperties: false, properties: { acl: aclEntries } },
          response: { 200: aclSchema, 201: aclSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const identity = callerOf(request);
        const address = addressOf(request);
        acls.require(identity, 'acls/write', address);
        const grants = grantsOf(request.body.acl);
        const rev = request.query.rev ?? 0;
        return reply.code(rev === 0 ? 201 : 200).send(writeJson(address, acls.replace(address, grants, rev, identity)));
      },
    );

    app.patch<AclRoute & { Querystring: { rev?: number }; Body: { '@type': 'Append' | 'Subtract'; acl: AclEntryInput[] } }>(
      url,
      {
        bodyLimit: 256 * 1024,
        schema: {
          ...paramsSchema,
          querystring: zeroOrMoreRev,
          body: {
            type: 'object',
            required: ['@type', 'acl'],
            additionalProperties: false,
            properties: { '@type': { enum: ['Append', 'Subtract'] }, acl: aclEntries },
          },
          response: { 200: aclSchema, ...errorResponses },
        },
      },
      async (request) => {
        const identity = callerOf(request);
        const address = addressOf(request);
        acls.require(identity, 'acls/write', address);
        const grants = grantsOf(request.body.acl);
        const rev = request.query.rev ?? 0;
        const acl = request.body['@type'] === 'Append' ? acls.append(address, grants, rev, identity) : acls.subtract(address, grants, rev, identity);
        return writeJson(address, acl);
      },
    );

    app.delete<AclRoute & { Querystring: { rev: number } }>(
      url,
      { schema: { ...paramsSchema, querystring: requiredRevQuery, response: { 200: aclSchema, ...errorResponses } } },
      async (request) => {
        const identity = callerOf(request);
        const address = addressOf(request);
        acls.require(identity, 'acls/write', address);
        return writeJson(address, acls.delete(address, request.query.rev, identity));
      },
    );
  }
}
