/**
 * GET /v1/projects: the projects on which the caller holds a permission (by
 * default `resources/read`), so a client can offer "projects I may write"
 * (`?permission=resources/write`). Projects marked for deletion are left out;
 * `deprecated` filters on deprecation, as in the reference's listings; `_next` links the next page.
 */
import type { FastifyInstance } from 'fastify';
import { METADATA_CONTEXT, PROJECTS_CONTEXT } from '../../platform/contexts.js';
import type { Platform } from '../../platform/index.js';
import { PERMISSIONS } from '../../platform/permissions.js';
import { typed } from '../typed.js';
import { callerOf } from './caller.js';
import { projectJson } from './projects.js';
import { nextPageLink } from './listing-pages.js';
import { deprecatedFilter, described, listingPageQuery, projectSchema, responses } from './schemas.js';

const listQuery = {
  type: 'object',
  properties: {
    permission: described(
      { type: 'string', enum: [...PERMISSIONS], default: 'resources/read' },
      'The permission the caller must hold on a project for it to be listed; default resources/read.',
    ),
    deprecated: deprecatedFilter,
    ...listingPageQuery(100),
  },
  additionalProperties: false,
} as const;

const projectListSchema = {
  type: 'object',
  properties: { '@context': {}, _total: { type: 'integer' }, _results: { type: 'array', items: projectSchema }, _next: { type: 'string' } },
} as const;

export async function projectListRoutes(app: FastifyInstance, { platform }: { platform: Platform }): Promise<void> {
  const { projects, baseUri } = platform;
  typed(app).get(
    '/projects',
    {
      schema: {
        summary: 'List the projects the caller holds a permission on',
        description:
          'The projects on which the caller holds permission (default resources/read), projects marked for deletion left out; ' +
          '_total counts them all, _next links the next page. Needs no permission of its own.',
        querystring: listQuery,
        response: responses(projectListSchema, 200),
      },
    },
    async (request) => {
      const { permission, deprecated, from, size } = request.query;
      const visible = await projects.visibleTo(callerOf(request), permission, deprecated);
      const next = nextPageLink(baseUri, '/v1/projects', request.query, visible.length);
      return {
        '@context': [PROJECTS_CONTEXT, METADATA_CONTEXT],
        _total: visible.length,
        _results: visible.slice(from, from + size).map((project) => projectJson(project, projects, baseUri)),
        ...(next !== undefined && { _next: next }),
      };
    },
  );
}
