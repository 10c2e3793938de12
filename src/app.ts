/**
 * buildApp(services) -> a fastify instance serving every API. No globals:
 * tests build their own app over their own index and stores.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { ErrorCode, errorBody, literatureErrorHandler } from './http/errors.js';
import type { LiteratureServices } from './http/literature/services.js';
import { retrievalRoutes } from './http/literature/retrieval.js';
import { suggestionRoutes } from './http/literature/suggestions.js';
import { serviceRoutes, type ServiceInfo } from './http/literature/service.js';
import { qaRoutes, type QaServices } from './http/literature/qa.js';

export interface AppServices extends LiteratureServices, ServiceInfo, QaServices {}

export interface AppOptions {
  /** A pino logger shared with the rest of the process; none = silent (tests). */
  logger?: FastifyBaseLogger;
}

export async function buildApp(services: AppServices, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomBytes(16).toString('hex'),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    ajv: {
      // Unknown parameters and fields are errors (a typo must not silently drop a filter);
      // single query values are coerced to arrays for repeatable filters.
      customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false },
    },
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(swagger, {
    openapi: {
      info: { title: 'litserve', description: 'Literature QA, retrieval and archive API', version: '0.1.0' },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(async (literature) => {
    literature.setErrorHandler(literatureErrorHandler);
    await literature.register(serviceRoutes, services);
    await literature.register(retrievalRoutes, services);
    await literature.register(suggestionRoutes, services);
    await literature.register(qaRoutes, services);
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody(ErrorCode.NOT_FOUND, `no route ${request.method} ${request.url.split('?')[0]}`));
  });
  return app;
}
