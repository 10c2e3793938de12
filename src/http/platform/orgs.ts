/** /v1/orgs/{org}: create, update, fetch (at a revision too), deprecate and undeprecate organizations. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { auditFields } from '../../platform/audit.js';
import { METADATA_CONTEXT, ORGS_CONTEXT } from '../../platform/contexts.js';
import type { Platform } from '../../platform/index.js';
import type { OrgState, OrgWrite } from '../../platform/orgs.js';
import { createOrUpdate } from '../../platform/put-write.js';
import { typed } from '../typed.js';
import { callerOf } from './caller.js';
import { checkPreconditions, existing, untagged } from './preconditions.js';
import { emptyBodyAsObject, orgParams, orgSchema, requiredRevQuery, revQuery, responses, updateRevQuery } from './schemas.js';
import { writeNamedBy, writersOnly } from './writers.js';

function orgJson(org: OrgState, baseUri: string) {
  const self = `${baseUri}/v1/orgs/${org.label}`;
  return {
    '@context': [ORGS_CONTEXT, METADATA_CONTEXT],
    '@id': self,
    '@type': 'Organization',
    _label: org.label,
    _uuid: org.uuid,
    ...(org.description !== undefined && { description: org.description }),
    _self: self,
    _rev: org.rev,
    _deprecated: org.deprecated,
    ...auditFields(org, baseUri),
  };
}

export async function orgRoutes(app: FastifyInstance, { platform }: { platform: Platform }): Promise<void> {
  const { orgs, baseUri } = platform;
  const api = typed(app);
  /**
   * Throws 412 unless the request's preconditions hold for the organization, for a caller who may perform
   * the write (else 403, as without them) and an organization the write takes (else the write's refusal).
   */
  const preconditionsOf = (request: FastifyRequest, label: string, write: OrgWrite) =>
    checkPreconditions(request.headers, async () => {
      const org = await existing(orgs.readForWriter(label, write, callerOf(request)), write, 'OrganizationNotFound');
      return org === null ? null : untagged(org);
    });
  /** Refuses a caller who may not perform the write (`write`, or the one its `rev` names) before its body is read. */
  const writersOf = (write?: 'change') =>
    writersOnly((request, caller) => orgs.requireWriter((request.params as { org: string }).org, write ?? writeNamedBy(request), caller));
  api.put(
    '/orgs/:org',
    {
      bodyLimit: 64 * 1024,
      preParsing: writersOf(),
      preValidation: emptyBodyAsObject,
      schema: {
        summary: 'Create or update an organization',
        description:
          'Without rev, creates the organization (201; 409 OrganizationAlreadyExists when the label is taken); with rev, its current revision, ' +
          'updates its description (200). The body may be left out: no description. Needs organizations/create, or organizations/write to update.',
        params: orgParams,
        querystring: updateRevQuery,
        body: { type: 'object', additionalProperties: false, properties: { description: { type: 'string', maxLength: 10_000 } } } as const,
        response: responses(orgSchema, 200, 201),
      },
    },
    async (request, reply) => {
      const rev = request.query.rev;
      await preconditionsOf(request, request.params.org, createOrUpdate(rev));
      const saved = await orgs.save(request.params.org, request.body.description, rev, callerOf(request));
      return reply.code(rev === undefined ? 201 : 200).send(orgJson(saved, baseUri));
    },
  );

  const readSchema = {
    summary: 'Read an organization',
    description: 'The latest revision, or revision rev as it was (description, _deprecated, _updatedAt, _updatedBy). Needs resources/read.',
    params: orgParams,
    querystring: revQuery,
    response: responses(orgSchema, 200),
  };
  api.get('/orgs/:org', { schema: readSchema }, async (request) => {
    return orgJson(await orgs.read(request.params.org, callerOf(request), request.query.rev), baseUri);
  });

  api.delete(
    '/orgs/:org',
    {
      preParsing: writersOf('change'),
      schema: {
        summary: 'Deprecate an organization',
        description:
          'A new revision with _deprecated true: the organization takes no new project and its projects take no change until it is undeprecated; ' +
          'reads go on. Needs organizations/write.',
        params: orgParams,
        querystring: requiredRevQuery,
        response: responses(orgSchema, 200),
      },
    },
    async (request) => {
      await preconditionsOf(request, request.params.org, { kind: 'deprecate', rev: request.query.rev });
      return orgJson(await orgs.deprecate(request.params.org, request.query.rev, callerOf(request)), baseUri);
    },
  );

  api.put(
    '/orgs/:org/undeprecate',
    {
      preParsing: writersOf('change'),
      schema: {
        summary: 'Undeprecate an organization',
        description: 'A new revision with _deprecated false: the organization and its projects take changes again; 400 OrganizationIsNotDeprecated when it is not deprecated. Needs organizations/write.',
        params: orgParams,
        querystring: requiredRevQuery,
        response: responses(orgSchema, 200),
      },
    },
    async (request) => {
      await preconditionsOf(request, request.params.org, { kind: 'undeprecate', rev: request.query.rev });
      return orgJson(await orgs.undeprecate(request.params.org, request.query.rev, callerOf(request)), baseUri);
    },
  );
}
