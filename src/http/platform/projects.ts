/** /v1/projects/{org}/{project}: create, update, fetch (at a revision too), deprecate, undeprecate and mark projects for deletion. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { auditFields } from '../../platform/audit.js';
import { METADATA_CONTEXT, PROJECTS_CONTEXT } from '../../platform/contexts.js';
import type { Platform } from '../../platform/index.js';
import type { ProjectService, ProjectState, ProjectWrite } from '../../platform/projects.js';
import { createOrUpdate } from '../../platform/put-write.js';
import type { ProjectRef } from '../../platform/refs.js';
import { typed } from '../typed.js';
import { callerOf } from './caller.js';
import { checkPreconditions, existing, untagged } from './preconditions.js';
import { described, emptyBodyAsObject, projectBody, projectParams, projectSchema, requiredRevQuery, revQuery, responses, updateRevQuery } from './schemas.js';
import { writeNamedBy, writersOnly } from './writers.js';

export function projectJson(project: ProjectState, projects: ProjectService, baseUri: string) {
  const self = `${baseUri}/v1/projects/${project.org}/${project.label}`;
  return {
    '@context': [PROJECTS_CONTEXT, METADATA_CONTEXT],
    '@id': self,
    '@type': 'Project',
    _label: project.label,
    _organizationLabel: project.org,
    _uuid: project.uuid,
    ...(project.description !== undefined && { description: project.description }),
    base: project.base,
    vocab: project.vocab,
    apiMappings: project.apiMappings,
    _effectiveApiMappings: projects.effectiveMappings(project),
    _self: self,
    _rev: project.rev,
    _deprecated: project.deprecated,
    _markedForDeletion: project.markedForDeletion,
    _readOnly: project.readOnly,
    ...auditFields(project, baseUri),
  };
}

export async function projectRoutes(app: FastifyInstance, { platform }: { platform: Platform }): Promise<void> {
  const api = typed(app);
  const { projects, baseUri } = platform;
  /**
   * Throws 412 unless the request's preconditions hold for the project, for a caller who may perform the
   * write (else 403, as without them) and a project the write takes (else the write's refusal).
   */
  const preconditionsOf = (request: FastifyRequest, ref: ProjectRef, write: ProjectWrite) =>
    checkPreconditions(request.headers, async () => {
      const project = await existing(projects.readForWriter(ref, write, callerOf(request)), write, 'ProjectNotFound');
      return project === null ? null : untagged(project);
    });
  /** Refuses a caller who may not perform the write (`write`, or the one its `rev` names) before its body is read. */
  const writersOf = (write?: 'change') =>
    writersOnly((request, caller) => projects.requireWriter(request.params as ProjectRef, write ?? writeNamedBy(request), caller));
  api.put(
    '/projects/:org/:project',
    {
      bodyLimit: 256 * 1024,
      preParsing: writersOf(),
      preValidation: emptyBodyAsObject,
      schema: {
        summary: 'Create or update a project',
        description:
          'Without rev, creates the project in its organization (201; 409 ProjectAlreadyExists when the label is taken, even by a project marked for deletion); ' +
          'with rev, its current revision, replaces its description, base, vocab and apiMappings (200). base defaults to ' +
          '{public URL}/v1/resources/{org}/{project}/_/, vocab to {public URL}/v1/vocabs/{org}/{project}/. The body may be left out. ' +
          'Needs projects/create on the organization, or projects/write to update.',
        params: projectParams,
        querystring: updateRevQuery,
        body: projectBody,
        response: responses(projectSchema, 200, 201),
      },
    },
    async (request, reply) => {
      const rev = request.query.rev;
      await preconditionsOf(request, request.params, createOrUpdate(rev));
      const saved = await projects.save(request.params, request.body, rev, callerOf(request));
      return reply.code(rev === undefined ? 201 : 200).send(projectJson(saved, projects, baseUri));
    },
  );

  const readSchema = {
    summary: 'Read a project',
    description:
      'The latest revision, or revision rev as it was (description, base, vocab, apiMappings, _deprecated, _updatedAt, _updatedBy), with ' +
      '_effectiveApiMappings (its own merged with the defaults). A project marked for deletion still answers. Needs resources/read.',
    params: projectParams,
    querystring: revQuery,
    response: responses(projectSchema, 200),
  };
  api.get('/projects/:org/:project', { schema: readSchema }, async (request) => {
    return projectJson(await projects.read(request.params, callerOf(request), request.query.rev), projects, baseUri);
  });

  api.delete(
    '/projects/:org/:project',
    {
      preParsing: writersOf('change'),
      schema: {
        summary: 'Deprecate a project, or mark it for deletion',
        description:
          'A new revision with _deprecated true: the project takes no writes until it is undeprecated, and is still read and archived from. ' +
          'With prune=true it is marked for deletion instead (_markedForDeletion): nothing is erased, it is left out of GET /v1/projects, and its label stays taken. ' +
          'Needs projects/write.',
        params: projectParams,
        querystring: {
          ...requiredRevQuery,
          properties: {
            ...requiredRevQuery.properties,
            prune: described({ type: 'boolean' }, 'true: mark the project for deletion rather than deprecate it; default false.'),
          },
        },
        response: responses(projectSchema, 200),
      },
    },
    async (request) => {
      const { rev, prune = false } = request.query;
      await preconditionsOf(request, request.params, { kind: prune ? 'prune' : 'deprecate', rev });
      const saved = await projects.deprecate(request.params, rev, prune, callerOf(request));
      return projectJson(saved, projects, baseUri);
    },
  );

  api.put(
    '/projects/:org/:project/undeprecate',
    {
      preParsing: writersOf('change'),
      schema: {
        summary: 'Undeprecate a project',
        description:
          'A new revision with _deprecated false: the project takes writes again; 400 ProjectIsNotDeprecated when it is not deprecated, ' +
          'OrganizationIsDeprecated while its organization is. Needs projects/write.',
        params: projectParams,
        querystring: requiredRevQuery,
        response: responses(projectSchema, 200),
      },
    },
    async (request) => {
      await preconditionsOf(request, request.params, { kind: 'undeprecate', rev: request.query.rev });
      return projectJson(await projects.undeprecate(request.params, request.query.rev, callerOf(request)), projects, baseUri);
    },
  );
}
