/**
 * The /v1 API of the resource platform and the archive service, as one
 * fastify plugin: `app.register(platformApi, { platform, archives })`. The plugin is
 * encapsulated: its error handler, body parsers and multipart support apply
 * to its own routes only.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ArchiveService } from '../../archive/archives.js';
import type { Platform } from '../../platform/index.js';
import { aclRoutes } from './acls.js';
import { archiveRoutes } from './archives.js';
import { identifyCallers } from './caller.js';
import { readQueryText } from './query-text.js';
import { platformErrorBody, handleError } from './errors.js';
import { addSharedSchemas } from './schemas.js';
import { RouteMethods, type UnroutedBodies } from '../method-not-allowed.js';
import { addSecurityHeaders } from '../security-headers.js';
import { varyAnswersOfNegotiatingRoutes } from '../negotiation.js';
import { jsonBodyText, type BodyTextProblem } from '../json-body.js';
import { PLATFORM_BODY_TYPES } from '../openapi-transform.js';
import { parsePayload } from './json-payload.js';
import { PlatformError } from '../../platform/errors.js';
import { fileRoutes } from './files.js';
import { orgRoutes } from './orgs.js';
import { projectListRoutes } from './project-list.js';
import { projectRoutes } from './projects.js';
import { resourceRoutes } from './resources.js';
import { SHOWN_PATH_LENGTH, shownName } from '../../text/unicode.js';
import { UPLOAD_FORM_LIMITS } from './upload-form.js';

export interface PlatformApiOptions {
  platform: Platform;
  archives: ArchiveService;
  /** --max-archive-downloads-per-client (its default is the settings table's, src/config/settings.ts). */
  maxArchiveDownloadsPerClient: number;
}

/**
 * Ids travel in URLs as percent-encoded IRIs (`_self` links), often longer
 * than fastify's default limit of 100 characters per path parameter. The
 * server must be created with at least this `maxParamLength`.
 */
export const PLATFORM_MAX_PARAM_LENGTH = 4096;

/** How /v1 answers a request no route takes: 404 NotFound, or 405 naming the methods its path takes. */
export function platformUnroutedBodies(method: string): UnroutedBodies {
  return {
    notFound: (path) => platformErrorBody('NotFound', `No route ${method} ${shownName(path, SHOWN_PATH_LENGTH)} in the /v1 API.`),
    notAllowed: (_path, allowed) => platformErrorBody('MethodNotSupported', `HTTP method not allowed, supported methods: ${allowed}.`),
  };
}

export async function platformApi(
  app: FastifyInstance,
  { platform, archives, maxArchiveDownloadsPerClient }: PlatformApiOptions,
): Promise<void> {
  const maxParamLength = app.initialConfig.routerOptions?.maxParamLength ?? app.initialConfig.maxParamLength ?? 100;
  if (maxParamLength < PLATFORM_MAX_PARAM_LENGTH) {
    throw new Error(
      `platformApi needs Fastify({ routerOptions: { maxParamLength: ${PLATFORM_MAX_PARAM_LENGTH} } }) or more: ids in /v1 URLs are long percent-encoded IRIs`,
    );
  }
  await app.register(
    async (v1) => {
      v1.setErrorHandler(handleError);
      addSharedSchemas(v1);
      // For the /v1 API registered on its own (the tests' bare servers); under app.ts the root's hook has set the same
      // headers already, and setting them again changes nothing.
      addSecurityHeaders(v1);
      // Only /v1 routes negotiate their representation (files, resources, archives).
      varyAnswersOfNegotiatingRoutes(v1);
      const routeMethods = RouteMethods.recordedFrom(v1);
      v1.setNotFoundHandler((request, reply) => routeMethods.answerUnrouted(request, reply, platformUnroutedBodies(request.method)));
      // JSON-LD payloads are JSON. Plain text is no payload of this API: 415, as for any other media type
      // it does not take (fastify's own text parser made it a 400 "body must be object").
      // A route that takes no body (DELETE, undeprecate) accepts an empty one however it is labelled: clients
      // send `Content-Type: application/json` with nothing after it, which the JSON parser refused with 400.
      v1.removeContentTypeParser('application/json');
      v1.addContentTypeParser([...PLATFORM_BODY_TYPES], { parseAs: 'buffer' }, (request, body, done) => {
        // Refused rather than stored with U+FFFD in place of what was sent (or a compressed body read as text).
        const read = jsonBodyText(request, body as Buffer);
        if (!('text' in read)) return done(unreadableBody(read), undefined);
        if (read.text === '' && request.routeOptions.schema?.body === undefined) return done(null, undefined);
        parsePayload(read.text).then(
          (payload) => done(null, payload),
          (error: unknown) => done(error as Error, undefined),
        );
      });
      v1.removeContentTypeParser('text/plain');
      await v1.register(multipart, {
        throwFileSizeLimit: false,
        limits: { fileSize: platform.files.maxFileBytes, ...UPLOAD_FORM_LIMITS },
      });
      identifyCallers(v1, platform);
      // Before the schemas coerce the query string: `rev=1.0` would reach a route as 1, `deprecated=yes` be refused.
      v1.addHook('preValidation', readQueryText);
      for (const routes of [orgRoutes, projectRoutes, projectListRoutes, aclRoutes, resourceRoutes, fileRoutes]) {
        await v1.register(routes, { platform });
      }
      await v1.register(archiveRoutes, { archives, maxDownloadsPerClient: maxArchiveDownloadsPerClient });
    },
    { prefix: '/v1' },
  );
}

/** A body whose text cannot be read, in the /v1 vocabulary: an unsupported coding or charset, or bytes that are not UTF-8. */
function unreadableBody({ status, reason }: BodyTextProblem): PlatformError {
  return new PlatformError(status, status === 415 ? 'UnsupportedMediaType' : 'DecodingFailed', `${reason[0]!.toUpperCase()}${reason.slice(1)}.`);
}
