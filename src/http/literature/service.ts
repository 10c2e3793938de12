/** GET / and /healthz (always open), and /settings (guarded like the literature routes: it names paths and models). */
import type { FastifyPluginAsync } from 'fastify';
import type { LiteratureServices } from './services.js';
import { publicSettings } from '../../config.js';
import { wantsHtml } from '../ui/routes.js';

export interface ServiceInfo {
  /** Which answer generator and reranker are active, for /settings. */
  components: () => Record<string, unknown>;
}

export const HEALTH_PATHS = new Set(['/', '/healthz']);

export const healthRoutes: FastifyPluginAsync = async (app) => {
  // API clients get the status; a browser is sent to the web page.
  app.get('/', { schema: { hide: true } }, async (request, reply) => (wantsHtml(request) ? reply.redirect('/ui/', 302) : { status: 'ok' }));

  app.get(
    '/healthz',
    { schema: { summary: 'Liveness probe: the JSON string "200"', tags: ['service'] } },
    async (_request, reply) => reply.type('application/json').send('"200"'),
  );
};

export const settingsRoutes: FastifyPluginAsync<LiteratureServices & ServiceInfo> = async (app, { config, searcher, components }) => {
  app.get(
    '/settings',
    {
      schema: {
        summary: 'Effective configuration (secrets masked), index statistics and active components',
        tags: ['service'],
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async () => ({
      ...publicSettings(config),
      searchThreads: searcher.threads,
      index_stats: {
        segments: searcher.snapshot.segments.length,
        articles: searcher.snapshot.liveArticleCount,
        paragraphs: searcher.snapshot.paragraphCount,
        generation: searcher.snapshot.manifest.generation,
        cached_filters: searcher.cachedFilters,
      },
      ...components(),
    }),
  );
};
