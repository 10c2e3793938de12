/**
 * /v1/archives/{org}/{project}[/{id}]: create an archive (POST, or PUT with
 * an id) and download it as a ZIP or read its metadata (GET). ZIP-accepting
 * callers (no Accept, `*\/*`, `application/zip`, `application/x-zip`) are
 * redirected with 303 to the archive after creation, JSON callers get 201
 * with metadata.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ArchiveService, StoredArchive } from '../../archive/archives.js';
import { StoreUnavailableError } from '../../platform/errors.js';
import type { Identity } from '../../platform/identities.js';
import type { JsonObject } from '../../platform/jsonld.js';
import type { ProjectRef } from '../../platform/refs.js';
import { clientKey } from '../client-address.js';
import { ArchiveDownloadSlots } from './archive-download-slots.js';
import { abortOnDisconnect } from '../disconnect.js';
import { responseCutByServer } from '../abandoned-requests.js';
import { typed } from '../typed.js';
import { callerOf } from './caller.js';
import { negotiate } from '../negotiation.js';
import { COLLECTION, checkPreconditions, existing, untagged } from './preconditions.js';
import {
  bytesSchema,
  common,
  described,
  errorResponse,
  errorResponses,
  header,
  idParams,
  jsonMetadata,
  mediaTypeResponse,
  noQuery,
  projectParams,
  VARY_ON_ACCEPT,
  REFUSALS_VARY_ON_ACCEPT,
} from './schemas.js';
import { writersOnly } from './writers.js';
import { logStoreUnavailable } from './errors.js';

const OFFERS = ['application/zip', 'application/ld+json', 'application/json'] as const;

/** The reference accepts 256 KiB; 1 MiB leaves room for the largest definitions (10,000 entries). */
const BODY_LIMIT = 1024 * 1024;

const entry = {
  type: 'object',
  properties: {
    '@type': { type: 'string' },
    resourceId: { type: 'string' },
    value: { type: 'string' },
    project: { type: 'string' },
    path: { type: 'string' },
    rev: { type: 'integer' },
    tag: { type: 'string' },
    format: { type: 'string' },
    originalSource: { type: 'boolean' },
  },
} as const;

const archiveSchema = {
  type: 'object',
  properties: {
    ...common,
    '@context': { type: 'array', items: { type: 'string' } },
    '@type': { type: 'string' },
    resources: { type: 'array', items: entry },
    _constrainedBy: { type: 'string' },
    _project: { type: 'string' },
    _expiresInSeconds: { type: 'integer' },
  },
} as const;

/**
 * The payload is only required to be an object here: the archive decoder
 * checks the rest and reports every problem at once, which a schema
 * validator stopping at the first error would not.
 */
const definitionBody = { type: 'object' } as const;

/** What creating an archive answers, by `Accept` (`created` below). */
const writeResponses = {
  201: mediaTypeResponse('The archive metadata, for a caller that asks for JSON (or any type other than a ZIP)', jsonMetadata(archiveSchema)),
  303: {
    description: 'See Other, for a caller that accepts a ZIP (or sends no Accept): GET the archive named by Location for its ZIP',
    headers: { Location: { type: 'string', description: "The archive's address (_self)" } },
    content: { 'text/html': { schema: { type: 'string' } } },
  },
  ...errorResponses,
};

/** The headers of an archive creation's answers: both depend on Accept. */
const writeHeaders = { 201: { Vary: VARY_ON_ACCEPT }, 303: { Vary: VARY_ON_ACCEPT }, ...REFUSALS_VARY_ON_ACCEPT };

/** What creating an archive takes and answers. */
const CREATION =
  'The body is the archive definition: resources, each a Resource (resourceId; project, rev or tag, path, format or originalSource optional), ' +
  "a File (resourceId; project, rev or tag, path optional) or a FileSelf (value: a file's _self; path optional); every problem of it is reported at once (400). " +
  'A caller accepting a ZIP (or sending no Accept) is sent to the archive with 303, one asking for JSON (or any type other than a ZIP) gets its ' +
  'metadata (201). Needs resources/read on the project, and on every project an entry reads from.';

/** What reading an archive answers, by `Accept`: its ZIP by default, its metadata for JSON. */
const readResponses = {
  200: mediaTypeResponse('The archive as a ZIP (for no Accept, a wildcard or a ZIP type), or its metadata for a caller that asks for JSON', {
    'application/zip': bytesSchema,
    ...jsonMetadata(archiveSchema),
  }),
  429: errorResponse(
    'TooManyRequests: the client (its IP address, an IPv6 one by its /64) has --max-archive-downloads-per-client ZIP downloads in progress already; see Retry-After',
  ),
  ...errorResponses,
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface ArchiveRouteOptions {
  archives: ArchiveService;
  /** ZIP downloads one client may have in progress at once (archive-download-slots.ts); 0 = no limit. */
  maxDownloadsPerClient: number;
}

export async function archiveRoutes(app: FastifyInstance, { archives, maxDownloadsPerClient }: ArchiveRouteOptions): Promise<void> {
  const api = typed(app);
  const downloadSlots = new ArchiveDownloadSlots(maxDownloadsPerClient);
  const created = (request: FastifyRequest, reply: FastifyReply, archive: StoredArchive) => {
    const wanted = negotiate(request.headers.accept, OFFERS);
    if (wanted === 'application/zip') {
      const location = archives.selfOf(archive);
      return reply
        .code(303)
        .header('Location', location)
        .type('text/html; charset=utf-8')
        .send(`The response to the request can be found under <a href="${escapeHtml(location)}">this URI</a>.`);
    }
    return reply.code(201).type(wanted ?? 'application/ld+json').send(archives.metadata(archive, false));
  };

  /**
   * Creates the archive and answers; a creation whose client leaves while it waits for the quota ledger's turn
   * gives up its place and stores nothing, and there is nobody to answer.
   */
  const create = async (request: FastifyRequest, reply: FastifyReply, ref: ProjectRef, id: string | undefined, payload: JsonObject, identity: Identity) => {
    // The target is the archive named (an archive is never changed: only If-None-Match: * is of use), or the collection a POST adds to,
    // read for a caller who may create the archive (else 403, as without the preconditions); whoever may create one may read it.
    await checkPreconditions(request.headers, async () => {
      if (id === undefined) {
        await archives.projectForCreator(ref, identity);
        return COLLECTION;
      }
      const archive = await existing(archives.fetch(ref, id, identity), { kind: 'create' }, 'ResourceNotFound');
      // Never updated: its last change is its creation.
      return archive === null ? null : untagged({ updatedAt: archive.createdAt });
    });
    const disconnected = abortOnDisconnect(reply).signal;
    try {
      return created(request, reply, await archives.create(ref, id, payload, identity, disconnected, clientKey(request.ip)));
    } catch (error) {
      if (!disconnected.aborted || error !== disconnected.reason) throw error;
      request.log.info('client disconnected; archive creation given up before its turn');
      return reply.hijack();
    }
  };

  const writeSchema = <Params extends object>(params: Params, summary: string, description: string) => ({
    summary,
    description: `${description} ${CREATION}`,
    params,
    querystring: { ...noQuery, properties: {} },
    body: definitionBody,
    response: writeResponses,
    responseHeaders: writeHeaders,
  });
  /** Refuses a caller who may not create archives in the project before the definition is read. */
  const creators = writersOnly((request, caller) => {
    const { org, project } = request.params as ProjectRef;
    archives.requireCreator({ org, project }, caller);
  });

  const postSchema = writeSchema(projectParams, 'Create an archive', "Creates an archive under a new id: the body's @id, or the project's base and a UUID.");
  // A ZIP's 303 or the metadata's 201, by Accept.
  const negotiating = { variesByAccept: true };
  api.post('/archives/:org/:project', { bodyLimit: BODY_LIMIT, preParsing: creators, config: negotiating, schema: postSchema }, (request, reply) =>
    create(request, reply, request.params, undefined, request.body, callerOf(request)),
  );

  const putSchema = writeSchema(
    idParams,
    'Create an archive with its id',
    'Creates an archive under the id of the path; an archive is never changed: 409 while one of that id has not expired.',
  );
  api.put('/archives/:org/:project/:id', { bodyLimit: BODY_LIMIT, preParsing: creators, config: negotiating, schema: putSchema }, (request, reply) => {
    const { id, ...ref } = request.params;
    return create(request, reply, ref, id, request.body, callerOf(request));
  });

  api.get(
    '/archives/:org/:project/:id',
    {
      config: negotiating,
      schema: {
        summary: 'Download an archive as a ZIP, or read its metadata',
        description:
          'A ZIP of the entries, streamed as it is made, for a caller sending no Accept, a wildcard or a ZIP type (application/zip, application/x-zip); ' +
          'its metadata (with _expiresInSeconds) for one asking for JSON or any other type. An entry that is gone fails the download before its first byte, unless ' +
          'ignoreNotFound=true. Needs resources/read on the project, and on every project an entry reads from.',
        params: idParams,
        // Any other parameter is refused, as on the other routes: a misspelt ignoreNotFound would be silently dropped.
        querystring: {
          ...noQuery,
          properties: {
            ignoreNotFound: described(
              { type: 'boolean' },
              'true (or yes, on, 1): leave out of the ZIP the entries that are gone rather than fail; default false.',
            ),
          },
        } as const,
        response: readResponses,
        responseHeaders: {
          200: { 'Content-Disposition': header('attachment; filename="archive.zip". Sent with the ZIP, not with the metadata.'), Vary: VARY_ON_ACCEPT },
          ...REFUSALS_VARY_ON_ACCEPT,
        },
      },
    },
    async (request, reply) => {
      const { id, ...ref } = request.params;
      const identity = callerOf(request);
      // As in the reference, whoever does not accept a ZIP gets the metadata.
      const wanted = negotiate(request.headers.accept, OFFERS) ?? 'application/ld+json';
      if (wanted !== 'application/zip') return reply.type(wanted).send(archives.metadata(await archives.fetch(ref, id, identity), true));
      // Before the archive is read, HEAD included (it answers what GET would): a refusal costs nothing.
      downloadSlots.claim(request, reply);
      const download = await archives.download(ref, id, identity, request.query.ignoreNotFound ?? false, clientKey(request.ip));
      reply.type('application/zip').header('Content-Disposition', 'attachment; filename="archive.zip"');
      // HEAD answers what GET would, without producing the ZIP: Fastify would read a stream to its end and throw it away,
      // however large, and after the client has gone. An empty stream keeps Fastify from announcing `Content-Length: 0`.
      if (request.method === 'HEAD') {
        download.abandon();
        return reply.send(Readable.from([]));
      }
      request.log.info({ archive: download.archiveId, entries: download.entryCount }, 'streaming archive');
      return reply.send(
        download.stream((error) => {
          // The database away mid-download is no bug: one warn line with its cause, as for any request then.
          if (error instanceof StoreUnavailableError) logStoreUnavailable(request, error, { archive: download.archiveId });
          else request.log.error({ err: error, archive: download.archiveId }, 'archive stream failed after the headers were sent');
          responseCutByServer(request);
        }),
      );
    },
  );
}
