/**
 * buildApp(services) -> a fastify instance serving every API. No globals:
 * tests build their own app over their own index and stores.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import rateLimit from '@fastify/rate-limit';
import { ApiError, ErrorCode, literatureErrorBody, literatureErrorHandler } from './http/errors.js';
import type { LiteratureServices } from './http/literature/services.js';
import { retrievalRoutes } from './http/literature/retrieval.js';
import { suggestionRoutes } from './http/literature/suggestions.js';
import { forwardedPrefixReader } from './http/forwarded-prefix.js';
import { isHealthProbe, healthRoutes, settingsRoutes, type ServiceInfo } from './http/literature/health-and-settings.js';
import { qaRoutes, type QaServices } from './http/literature/qa.js';
import { RELOAD_PERMISSION, adminRoutes } from './http/literature/admin.js';
import { shedLoad } from './http/load-shedding.js';
import { refuseWhileDraining } from './http/draining.js';
import { refuseBodiesOfReads } from './http/literature/read-body.js';
import { warnOfUntrustedForwarding } from './http/untrusted-forwarding.js';
import { limitConnections } from './http/connection-limits.js';
import { continueWhenBodyIsRead } from './http/expect-continue.js';
import { lingerBeforeClosing } from './http/lingering-close.js';
import { closeIfBodyUnread } from './http/unread-body.js';
import { cutStalledResponses } from './http/send-stall.js';
import { addCorsHeaders, answerPreflights, enableCors } from './http/cors.js';
import { parseLiteratureJson } from './http/json-body.js';
import { acceptedRequestId, newRequestId } from './http/request-id.js';
import { logAbandonedRequests } from './http/abandoned-requests.js';
import { originForm } from './http/request-target.js';
import { loadUiAssets, type UiAssets } from './http/ui/assets.js';
import { uiRoutes } from './http/ui/routes.js';
import { addSecurityHeaders, setSecurityHeaders } from './http/security-headers.js';
import { clientErrorAnswers, trackRequestUrls } from './http/client-errors.js';
import { refuseConnect, refuseUnsupportedFraming } from './http/transport-refusals.js';
import { refuseUndecodableQueries } from './http/query-encoding.js';
import { buildValidator } from './http/validation.js';
import { openapiDocument, openapiTransform } from './http/openapi-transform.js';
import { RouteMethods, type UnroutedBodies } from './http/method-not-allowed.js';
import { PLATFORM_MAX_PARAM_LENGTH, platformApi, platformUnroutedBodies } from './http/platform/index.js';
import { identifyRequest, rateLimitKey } from './http/platform/caller.js';
import { platformErrorBody } from './http/platform/errors.js';
import { AuthenticationError, AuthorizationError, type Platform } from './platform/index.js';
import { inFlightPerClient } from './config.js';
import type { ArchiveService } from './archive/archives.js';
import { SHOWN_PATH_LENGTH, shownName } from './text/unicode.js';
import { addressesPlatform } from './http/platform-path.js';

export interface AppServices extends LiteratureServices, ServiceInfo, QaServices {
  /** The resource platform (/v1) and the ACLs guarding the literature routes; none = open literature API only. */
  platform?: Platform;
  /** The archive service over the platform (/v1/archives). */
  archives?: ArchiveService;
}

export interface AppOptions {
  /** A pino logger shared with the rest of the process; none = silent (tests). */
  logger?: FastifyBaseLogger;
  /** The web page's files; default: read from src/ui (a packaged build passes its embedded copy). */
  uiAssets?: UiAssets;
}

export async function buildApp(services: AppServices, options: AppOptions = {}): Promise<FastifyInstance> {
  const { refuseUrl, answerClientError } = clientErrorAnswers(platformErrorBody, options.logger);
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // A client's x-request-id is taken only when it is a short token (acceptedRequestId); otherwise one is generated.
    requestIdHeader: false,
    // fastify logs "incoming request" and "request completed": logRequests writes one line instead.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (request) => acceptedRequestId(request.headers['x-request-id']) ?? newRequestId(),
    // Every check of request.url reads a path: a target in absolute form is taken as one (request-target.ts).
    rewriteUrl: (request) => originForm(request.url ?? '/'),
    // Ids travel in /v1 URLs as long percent-encoded IRIs. Trailing slashes matter there
    // (`/v1/acls` and `/v1/acls/` are different routes), so they are not ignored.
    routerOptions: { maxParamLength: PLATFORM_MAX_PARAM_LENGTH },
    bodyLimit: 1024 * 1024,
    // request.ip is the client X-Forwarded-For names only when a listed proxy sent it (the rate limit and in-flight share key on it).
    trustProxy: services.config.trustProxy.length > 0 ? services.config.trustProxy : false,
    requestTimeout: services.config.requestTimeout,
    // Node checks request timeouts every 30 s by default (a 3 s timeout fired after up to 33 s), and
    // its 60 s headers timeout outlived a shorter request timeout.
    http: {
      connectionsCheckingInterval: timeoutCheckInterval(services.config.requestTimeout),
      headersTimeout: Math.min(60_000, services.config.requestTimeout),
      // Node's own refusal of a request without Host was a bare 400: the app refuses it (transport-refusals.ts).
      requireHostHeader: false,
    },
    // Refused in the APIs' vocabularies instead (draining.ts).
    return503OnClosing: false,
    // Requests Node's HTTP parser rejects never reach fastify: answer them in the vocabulary of the API addressed.
    clientErrorHandler: answerClientError,
    // Undecodable URLs are refused by the router before any route runs: answer in the vocabulary of the API addressed.
    // No hook runs for them: the request id, security and CORS headers are added here.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      setSecurityHeaders(reply as FastifyReply);
      addCorsHeaders(services.config.corsOrigins, request, reply as FastifyReply);
      // Fastify's message quotes the whole URL: its path is shown shortened, as in every refusal of one.
      const shownUrl = shownName(request.url, SHOWN_PATH_LENGTH);
      // Its words for a segment over the router's bound named no bound.
      const reason =
        (error as FastifyError).code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `A segment of the path '${shownUrl}' is longer than the ${PLATFORM_MAX_PARAM_LENGTH} characters a route takes.`
          : error.message.replace(request.url, shownUrl);
      void refuseUrl(request, reply as FastifyReply, 'InvalidPathSegment', reason);
    },
    // Query strings coerced to the schemas' types, bodies not; no non-finite number passes (validation.ts).
    schemaController: { compilersFactory: { buildValidator } },
  });
  const routeMethods = RouteMethods.recordedFrom(app);
  limitConnections(app.server, { total: services.config.maxConnections, perClient: services.config.maxConnectionsPerClient }, app.log);
  // `Expect: 100-continue` answered once the route, its hooks and the body limit have let the body in.
  continueWhenBodyIsRead(app.server);
  // A refusal that closes the connection before the body was read reaches a client still sending it.
  lingerBeforeClosing(app.server);
  cutStalledResponses(app, services.config.sendStallTimeout);
  refuseConnect(app.server, () => routeMethods.everyMethod(), options.logger);
  // Set before any route or plugin is registered, so that every one outside /v1 (the page, /docs,
  // /openapi.json, requests no route takes) inherits it: fastify's own error body is no vocabulary of ours.
  app.setErrorHandler(literatureErrorHandler);
  parseLiteratureJson(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  trackRequestUrls(app);
  logRequests(app);
  // A request whose client left before its answer gets no 'request completed' line: one line says so instead.
  logAbandonedRequests(app);
  addSecurityHeaders(app);
  // CORS headers first, so the refusals below (400, 503) can be read by a cross-origin page too.
  enableCors(app, services.config.corsOrigins);
  refuseUndecodableQueries(app, (request, reply, reason) => refuseUrl(request, reply, 'MalformedQueryParam', reason));
  refuseUnsupportedFraming(app, () => routeMethods.everyMethod(), (request, reply, status, platformType, reason) =>
    refuseUrl(request, reply, platformType, reason, status),
  );

  await app.register(swagger, {
    openapi: {
      info: { title: 'litserve', description: 'Literature QA, retrieval and archive API', version: '0.1.0' },
      // Behind a proxy with a path prefix, tools resolving paths against the document's host alone lost the prefix.
      ...(services.config.publicUrl && { servers: [{ url: services.config.publicUrl.replace(/\/+$/, ''), description: 'This server, as --public-url names it' }] }),
    },
    // Schemas shared with addSchema appear in components under their $id (PlatformError...), not def-N.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // Fastify answers HEAD for every GET route: listed too, with the GET's schema (and its `hide`), without a body.
    exposeHeadRoutes: true,
    transform: openapiTransform,
    transformObject: openapiDocument,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  warnOfUntrustedForwarding(app);
  answerPreflights(app, services.config.corsOrigins);
  // A request no route takes is answered before its body is read (after the preflights, which no route
  // takes either): the not-found handlers run after the body, and one sent slowly to a path that does
  // not exist (even without credentials) had held a slot.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    closeIfBodyUnread(request, reply);
    return routeMethods.answerUnrouted(request, reply, unroutedBodies(request));
  });
  // After the preflights and the requests no route takes, which cost nothing and are never refused 503; before the
  // rate limit, authentication and the body (load-shedding.ts).
  refuseWhileDraining(app);
  shedLoad(app, { total: services.config.maxInFlight, perClient: inFlightPerClient(services.config) });
  if (services.config.rateLimit > 0) {
    await app.register(rateLimit, {
      max: services.config.rateLimit,
      timeWindow: 60_000,
      keyGenerator: (request) => rateLimitKey(request, services.platform),
      // Load balancers poll health from one address, often: never limit it.
      allowList: (request) => isHealthProbe(request.url),
      // Each API's error handler turns this into its own vocabulary (code 5 / TooManyRequests).
      // `after` is the time left until the window resets.
      errorResponseBuilder: (_request, context) =>
        Object.assign(new Error(`rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`), { statusCode: 429 }),
    });
  }

  await app.register(async (literature) => {
    literature.setErrorHandler(literatureErrorHandler);
    refuseBodiesOfReads(literature);
    await literature.register(healthRoutes, { forwardedPrefix: forwardedPrefixReader(services.config.trustProxy) });
    const { platform } = services;
    await literature.register(async (guarded) => {
      // preParsing: after the rate limit (a route-level onRequest hook), before the body is read or validated.
      if (platform) {
        guarded.addHook('preParsing', async (request, _reply, payload) => {
          await authorizeLiterature(platform, services.config.literatureProject, request);
          return payload;
        });
      }
      await guarded.register(settingsRoutes, services);
      await guarded.register(retrievalRoutes, services);
      await guarded.register(suggestionRoutes, services);
      await guarded.register(qaRoutes, services);
    });
    // Reloading changes what the literature project serves: it needs write permission there, so it exists only with the platform's ACLs.
    if (platform) {
      await literature.register(async (admin) => {
        admin.addHook('preParsing', async (request, _reply, payload) => {
          await authorizeLiterature(platform, services.config.literatureProject, request, RELOAD_PERMISSION);
          return payload;
        });
        await admin.register(adminRoutes, services);
      });
    }
  });
  if (services.platform && services.archives) {
    await app.register(platformApi, {
      platform: services.platform,
      archives: services.archives,
      maxArchiveDownloadsPerClient: services.config.maxArchiveDownloadsPerClient,
    });
  }
  await app.register(uiRoutes, { assets: options.uiAssets ?? (await loadUiAssets()) });

  // What a route hands on as not found (callNotFound) is answered as a request no route takes.
  app.setNotFoundHandler((request, reply) => routeMethods.answerUnrouted(request, reply, unroutedBodies(request)));
  return app;
}

/** The answers to a request no route takes, in the vocabulary of the API its path is under. */
function unroutedBodies(request: FastifyRequest): UnroutedBodies {
  if (addressesPlatform(request.url)) return platformUnroutedBodies(request.method);
  return {
    notFound: (path) => literatureErrorBody(ErrorCode.NOT_FOUND, `no route ${request.method} ${shownName(path, SHOWN_PATH_LENGTH)}`),
    notAllowed: (path, allowed) => literatureErrorBody(ErrorCode.METHOD_NOT_ALLOWED, `${shownName(path, SHOWN_PATH_LENGTH)} takes ${allowed}, not ${request.method}`),
  };
}

/**
 * One line per request at info level, request and response together. Routes
 * add their own fields (QA stage timings) as bindings of request.log. The raw
 * status is logged, so streams a route took over (reply.hijack) show theirs.
 */
function logRequests(app: FastifyInstance): void {
  // `client`: the address the per-client bounds count (a --trust-proxy proxy's client): behind a proxy the log had not
  // said who was served or rate-limited, nor shown that --trust-proxy took effect.
  const line = (request: FastifyRequest, statusCode: number, responseTime: number) =>
    request.log.info(
      { method: request.method, url: request.url, statusCode, responseTime: Math.round(responseTime * 10) / 10, client: request.ip },
      'request completed',
    );
  app.addHook('onResponse', async (request, reply) => {
    line(request, reply.raw.statusCode, reply.elapsedTime);
  });
}

/** The literature routes need `resources/read` on the built-in literature project, so ACLs can close them. */
async function authorizeLiterature(platform: Platform, project: string, request: FastifyRequest, permission = 'resources/read'): Promise<void> {
  try {
    platform.authorize(await identifyRequest(platform, request), permission, project);
  } catch (error) {
    if (error instanceof AuthenticationError) {
      throw new ApiError(401, ErrorCode.UNAUTHENTICATED, error.reason, {}, { 'www-authenticate': 'Bearer' });
    }
    if (error instanceof AuthorizationError) throw new ApiError(403, ErrorCode.FORBIDDEN, error.reason);
    throw error;
  }
}

/** How often Node looks for requests past the timeout: a tenth of it, within 250 ms and Node's default 30 s. */
function timeoutCheckInterval(requestTimeoutMs: number): number {
  return Math.min(30_000, Math.max(250, Math.round(requestTimeoutMs / 10)));
}
