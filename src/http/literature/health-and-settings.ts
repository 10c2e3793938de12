/** GET / and /healthz (always open), and /settings (guarded like the literature routes: it names paths and models). */
import type { FastifyPluginAsync } from 'fastify';
import type { LiteratureServices } from './services.js';
import { inFlightPerClient, publicSettings } from '../../config.js';
import { perCallerPlaces } from '../../llm/queue.js';
import { errorResponses, GUARDED_ERRORS, READ_PERMISSION } from './schemas.js';
import { PAGE_FROM_ROOT, wantsHtml } from '../ui/routes.js';
import type { PrefixReader } from '../forwarded-prefix.js';
import { varyOnAccept } from '../negotiation.js';

export interface ServiceInfo {
  /** For /settings, what is in force beyond the settings as given: the active generator and reranker, defaults resolved at start. */
  components: () => Record<string, unknown>;
}

const HEALTH_PATHS = new Set(['/', '/healthz']);

/** True for GET / and /healthz whatever their query string: probes are never rate-limited or shed. */
export function isHealthProbe(url: string): boolean {
  const query = url.indexOf('?');
  return HEALTH_PATHS.has(query === -1 ? url : url.slice(0, query));
}

export const healthRoutes: FastifyPluginAsync<{ forwardedPrefix: PrefixReader }> = async (app, { forwardedPrefix }) => {
  // API clients get the status; a browser (Accept: text/html) is sent to the web page.
  app.get(
    '/',
    {
      schema: {
        summary: 'Service status: {"status": "ok"}; a browser is redirected to the web page',
        description: 'Always open: no token needed, never rate-limited nor refused while the server is busy, so a probe can use it.',
        tags: ['service'],
        response: {
          200: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } }, required: ['status'] },
          302: {
            description: 'Asked by a browser (an Accept preferring text/html to application/json; a tie is JSON\'s): redirected to the web page (relative Location `ui/`; `<prefix>/ui/` under the X-Forwarded-Prefix of a --trust-proxy proxy)',
            type: 'null',
          },
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      // The answer depends on Accept: a shared cache must not hand the browser's redirect to an API client.
      varyOnAccept(reply);
      if (!wantsHtml(request)) return { status: 'ok' };
      const prefix = forwardedPrefix(request);
      return reply.redirect(prefix === null ? PAGE_FROM_ROOT : `${prefix}/${PAGE_FROM_ROOT}`, 302);
    },
  );

  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness probe: the JSON string "200"',
        description: 'Always open: no token needed, never rate-limited nor refused while the server is busy.',
        tags: ['service'],
        response: { 200: { type: 'string', enum: ['200'] }, ...errorResponses(400) },
      },
    },
    async (_request, reply) => reply.type('application/json').send('"200"'),
  );
};

export const settingsRoutes: FastifyPluginAsync<LiteratureServices & ServiceInfo> = async (app, { config, index, components }) => {
  app.get(
    '/settings',
    {
      schema: {
        summary: 'Effective configuration (secrets masked), index statistics and active components',
        description:
          'Every setting of serve as in force (defaults decided at start shown decided; passwords and tokens masked), the index served ' +
          `(index_stats: articles, paragraphs, segments, generation, cached filters), and the generator and reranker in use. ${READ_PERMISSION}`,
        tags: ['service'],
        // `properties` even when empty: without it the OpenAPI document lists the schema's keywords as parameters.
        querystring: { type: 'object', properties: {}, additionalProperties: false },
        response: { 200: { type: 'object', additionalProperties: true }, ...errorResponses(400, 422, ...GUARDED_ERRORS) },
      },
    },
    async () => {
      const { searcher, generation } = index.current;
      return {
        ...publicSettings(config),
        // Unset, each share is half of its bound: the share in force is shown, not null.
        maxInFlightPerClient: inFlightPerClient(config),
        llmQueuePerClient: perCallerPlaces(config.llmQueuePerClient, config.llmQueueSize),
        rerankerQueuePerClient: perCallerPlaces(config.rerankerQueuePerClient, config.rerankerQueueSize),
        searchThreads: searcher.threads,
        index_stats: {
          ...searcher.statistics(),
          // The generation being served: it changes when a newly published one is loaded (no restart).
          generation,
          cached_filters: searcher.cachedFilters,
        },
        ...components(),
      };
    },
  );
};
