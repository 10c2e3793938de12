/**
 * POST /admin/reload: switch to the newest published index generation now,
 * rather than at the next watch event or periodic check. It needs
 * `resources/write` on the literature project (changing what the project
 * holds), checked by the hook app.ts installs around this plugin. It takes
 * no options: a body, when one is sent, is `{}`; any key in it is refused as
 * the other routes refuse one they do not know, not silently ignored.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { LiveIndex } from '../../live/live-index.js';
import { ApiError, ErrorCode, errorResponseSchema } from '../errors.js';
import { errorResponses } from './schemas.js';

export const RELOAD_PERMISSION = 'resources/write';

export const adminRoutes: FastifyPluginAsync<{ index: LiveIndex }> = async (app, { index }) => {
  app.post(
    '/admin/reload',
    {
      schema: {
        summary: 'Serve the newest published index generation now (requests in flight finish on the one they started on)',
        description:
          'What the index watch (--index-watch, on by default) does soon after an ingestion or merge, done at once: loads the newest generation ' +
          `published in --index and serves it, or says it was served already (switched false). Needs ${RELOAD_PERMISSION} on the literature project.`,
        tags: ['service'],
        querystring: { type: 'object', properties: {}, additionalProperties: false },
        body: { type: 'object', properties: {}, additionalProperties: false, description: 'Optional: no body, or `{}`; the route takes no options.' },
        // The preValidation hook below takes an absent body for `{}`.
        optionalBody: true,
        response: {
          200: {
            type: 'object',
            properties: {
              switched: { type: 'boolean', description: 'False when the newest generation was already served.' },
              generation: { type: 'integer', description: 'The generation served from now on.' },
              previous_generation: { type: 'integer' },
            },
            required: ['switched', 'generation', 'previous_generation'],
          },
          // 413: a body over the server's body limit, refused before it is read; 429: the rate limit counts reloads as any other request.
          ...errorResponses(400, 401, 413, 415, 422, 429),
          403: { ...errorResponseSchema, description: `The caller lacks ${RELOAD_PERMISSION} on the literature project (code 10).` },
          503: {
            ...errorResponseSchema,
            description: 'The published index could not be loaded, and the one served stays (code 3), or the server is at --max-in-flight, or the caller at its share (code 13, Retry-After).',
          },
        },
      },
      // No body is the same as `{}` (fastify validates an absent body as null, which the schema refuses); a JSON `null` is refused.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    async (request) => {
      let result;
      try {
        result = await index.reload();
      } catch (error) {
        // The published index cannot be loaded (a broken or foreign file): the server keeps serving what it had.
        request.log.warn({ err: error }, 'reload failed');
        throw new ApiError(503, ErrorCode.INACTIVE, `the published index could not be loaded (${(error as Error).message}); still serving generation ${index.current.generation}`);
      }
      request.log.info(result, 'reload requested');
      return { switched: result.switched, generation: result.generation, previous_generation: result.previous };
    },
  );
};
