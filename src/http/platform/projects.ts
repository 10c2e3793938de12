/** /v1/projects/{org}/{project}: create, update, fetch, deprecate and mark projects for deletion. */
import type { FastifyInstance } from 'fastify';
import { auditFields } from '../../platform/audit.ts';
import { METADATA_CONTEXT, PROJECTS_CONTEXT } from '../../platform/contexts.ts';
import { rejections } from '../../platform/errors.ts';
import type { Platform } from '../../platform/index.ts';
import { isAbsoluteIri } from '../../platform/iri.ts';
import type { ProjectFields, ProjectService, ProjectState } from '../../platform/projects.ts';
import { callerOf } from './caller.ts';
import { emptyBodyAsObject, errorResponses, projectBody, projectParams, projectSchema, requiredRevQuery, revQuery } from './schemas.ts';

interface ProjectRoute {
  Params: { org: string; project: string };
}

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
  const { projects, acls, baseUri } = platform;
  const response = (code: number) => ({ [code]: projectSchema, ...errorResponses });

  app.put<ProjectRoute & { Querystring: { rev?: number }; Body: ProjectFields }>(
    '/projects/:org/:project',
    {
      bodyLimit: 256 * 1024,
      preValidation: emptyBodyAsObject,
      schema: { params: projectParams, querystring: revQuery, body: projectBody, response: { ...response(200), ...response(201) } },
    },
    async (request, reply) => {
      const identity = callerOf(request);
      const { org, project } = request.params;
      const rev = request.query.rev;
      if (rev === undefined) acls.require(identity, 'projects/create', `/${org}`);
      else acls.require(identity, 'projects/write', `/${org}/${project}`);
      const fields = request.body;
      checkIris(fields);
      const saved = projects.save({ org, project }, fields, rev, identity);
      return reply.code(rev === undefined ? 201 : 200).send(projectJson(saved, projects, baseUri));
    },
  );

  app.get<ProjectRoute>('/projects/:org/:project', { schema: { params: projectParams, response: response(200) } }, async (request) => {
    const { org, project } = request.params;
    acls.require(callerOf(request), 'resources/read', `/${org}/${project}`);
    const state = projects.get({ org, project });
    if (!state) throw rejections.projectNotFound(`${org}/${project}`);
    return projectJson(state, projects, baseUri);
  });

  app.delete<ProjectRoute & { Querystring: { rev: number; prune?: boolean } }>(
    '/projects/:org/:project',
    {
      schema: {
        params: projectParams,
        querystring: { ...requiredRevQuery, properties: { ...requiredRevQuery.properties, prune: { type: 'boolean' } } },
        response: response(200),
      },
    },
    async (request) => {
      const identity = callerOf(request);
      const { org, project } = request.params;
      acls.require(identity, 'projects/write', `/${org}/${project}`);
      const saved = projects.deprecate({ org, project }, request.query.rev, request.query.prune ?? false, identity);
      return projectJson(saved, projects, baseUri);
    },
  );
}

function checkIris(fields: ProjectFields): void {
  const problems = [
    ...(fields.base !== undefined && !isAbsoluteIri(fields.base) ? [`'base' must be an absolute IRI, got '${fields.base}'.`] : []),
    ...(fields.vocab !== undefined && !isAbsoluteIri(fields.vocab) ? [`'vocab' must be an absolute IRI, got '${fields.vocab}'.`] : []),
    ...(fields.apiMappings ?? []).flatMap((m) =>
      isAbsoluteIri(m.namespace) ? [] : [`The namespace '${m.namespace}' of prefix '${m.prefix}' must be an absolute IRI.`],
    ),
  ];
  const prefixes = (fields.apiMappings ?? []).map((m) => m.prefix);
  const repeated = prefixes.filter((p, i) => prefixes.indexOf(p) !== i);
  if (repeated.length > 0) problems.push(`The prefixes '${[...new Set(repeated)].join("', '")}' are mapped more than once.`);
  if (problems.length > 0) throw rejections.decodingFailed(problems);
}
