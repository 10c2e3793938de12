/**
 * /v1/resources/{org}/{project}[/{schema}[/{id}]]: JSON-LD resources with
 * revisions, tags, deprecation and undeprecation, source and annotated source, and content
 * negotiation to N-Triples, N-Quads and dot. Only the unconstrained schema
 * (`_`) exists: SHACL validation is not part of this platform. The project's
 * listing holds its files too, as Nexus's does, and a read under `_` finds a
 * file too: its metadata and its tags, not a source (a file has none: its
 * content is at its `_self`). Writes here refuse a file: it changes through /v1/files.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UNCONSTRAINED_SCHEMA } from '../../platform/contexts.js';
import { PlatformError } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import type { JsonObject } from '../../platform/jsonld.js';
import { createOrUpdate } from '../../platform/put-write.js';
import type { ProjectRef } from '../../platform/refs.js';
import { type EntityWrite, MAX_FILTERED_ENTRIES } from '../../platform/revisions.js';
import { MAX_TAG_LENGTH } from '../../platform/tags.js';
import { entityView, writeResponse } from '../../platform/metadata.js';
import { type Format, FORMAT_MEDIA_TYPES } from '../../platform/rendering.js';
import { typed } from '../typed.js';
import { callerOf, renderCallerOfRequest } from './caller.js';
import { filteredListingPage } from './listing-pages.js';
import { negotiate } from '../negotiation.js';
import { COLLECTION, checkPreconditions, existing, untagged } from './preconditions.js';
import { selectorFrom } from './selectors.js';
import { writersOnly } from './writers.js';
import {
  described,
  documentSchema,
  entitySchema,
  errorResponses,
  mediaTypeResponse,
  responses,
  idParams,
  filteredListingQuery,
  listSchema,
  projectParams,
  requiredRevQuery,
  noQuery,
  updateRevQuery,
  selectorQuery,
  tag,
  tagList,
  tagListSchema,
  rev as revSchema,
  VARY_ON_ACCEPT,
  REFUSALS_VARY_ON_ACCEPT,
  withTagParam,
} from './schemas.js';

/** The schema segment: the unconstrained schema alone exists (assertUnconstrained). */
const schemaSegment = described(
  { type: 'string' },
  "The schema: _ (unconstrained; a read under it finds files too), or resource or the unconstrained schema's IRI, which name it too; any other is 404 SchemaNotFound.",
);
const schemaParams = { ...projectParams, required: [...projectParams.required, 'schema'], properties: { ...projectParams.properties, schema: schemaSegment } } as const;
const resourceParams = { ...idParams, required: [...idParams.required, 'schema'], properties: { ...idParams.properties, schema: schemaSegment } } as const;
const PAYLOAD_LIMIT_MIB = 2;
const payloadLimit = PAYLOAD_LIMIT_MIB * 1024 * 1024;
/** What creating a resource takes and answers. */
const CREATION =
  `Creates a resource from a JSON-LD payload (at most ${PAYLOAD_LIMIT_MIB} MiB), its id the payload's @id resolved against the project's base, or the base and a new UUID; ` +
  '409 ResourceAlreadyExists when the id is taken. Answers its metadata (201). Needs resources/write.';
/** The permission of the routes that change a resource, and what they refuse. */
const CHANGE = 'A file is changed through /v1/files only (400 ResourceIsAFile). Needs resources/write.';
const payloadSchema = { type: 'object' } as const;

const OFFERS = ['application/ld+json', 'application/json', 'application/n-triples', 'application/n-quads', 'text/vnd.graphviz'] as const;
const RDF_FORMATS: Partial<Record<(typeof OFFERS)[number], Format>> = {
  'application/n-triples': 'n-triples',
  'application/n-quads': 'n-quads',
  'text/vnd.graphviz': 'dot',
};

/** A resource as its `Accept` asks: JSON-LD (compacted, or expanded as an array) or RDF as text. */
const representationResponse = mediaTypeResponse(
  'The resource: compacted JSON-LD by default, expanded with format=expanded, or N-Triples, N-Quads or Graphviz dot by Accept',
  Object.fromEntries(OFFERS.map((mediaType) => [mediaType, RDF_FORMATS[mediaType] ? { type: 'string' } : { anyOf: [documentSchema, { type: 'array' }] }])),
);

function assertUnconstrained(schema: string): void {
  if (schema !== '_' && schema !== 'resource' && schema !== UNCONSTRAINED_SCHEMA) {
    throw new PlatformError(
      404,
      'SchemaNotFound',
      `Schema '${schema}' not found: only the unconstrained schema exists, written '_' (any entity, files included), 'resource' or its IRI; files are listed under /v1/files or with type=nxv:File.`,
    );
  }
}

/**
 * What a read under `schema` finds: `_` stands for any schema, so it finds files too (their metadata),
 * as Nexus reads any entity there; the unconstrained schema named (`resource` or its IRI) does not
 * constrain files (theirs is files.json), so it finds resources only.
 */
function kindReadUnder(schema: string): 'resource' | 'any' {
  return schema === '_' ? 'any' : 'resource';
}

export async function resourceRoutes(app: FastifyInstance, { platform }: { platform: Platform }): Promise<void> {
  const api = typed(app);
  const { resources, renderer, baseUri } = platform;
  /**
   * Throws 412 unless the request's preconditions hold for the resource (for a creation, the entity a read
   * under `_` finds, a file too), for a caller who may perform the write (else 403, as without them) and a
   * resource the write takes (else the write's refusal).
   */
  const preconditionsOf = (request: FastifyRequest, ref: ProjectRef, id: string, write: EntityWrite) =>
    checkPreconditions(request.headers, async () => {
      const found = await existing(resources.readForWriter(ref, id, write, callerOf(request)), write, 'ResourceNotFound');
      return found === null ? null : untagged(found);
    });
  /** Throws 412 unless the request's preconditions hold for the project's collection, for a caller who may create in it (else 403). */
  const collectionPreconditionsOf = (request: FastifyRequest, ref: ProjectRef) =>
    checkPreconditions(request.headers, async () => {
      await resources.projectForWriter(ref, callerOf(request));
      return COLLECTION;
    });
  /**
   * Refuses a caller who may not write resources in the project before the write's body is read; a schema
   * other than the unconstrained one is refused first (404), as the write's handler refuses it.
   */
  const writers = writersOnly((request, caller) => {
    const { org, project, schema } = request.params as ProjectRef & { schema?: string };
    if (schema !== undefined) assertUnconstrained(schema);
    resources.requireWriter({ org, project }, caller);
  });
  api.get(
    '/resources/:org/:project',
    {
      schema: {
        summary: "List a project's resources, files included",
        description:
          'Resources and files in id order, a page of them (from, size), under the filters given (all must hold); _total counts what the filters keep, ' +
          `_next links the next page. A filtered listing of a project holding more than ${MAX_FILTERED_ENTRIES.toLocaleString('en')} entities is 400 FilteredListingTooLarge. Needs resources/read.`,
        params: projectParams,
        querystring: filteredListingQuery,
        response: responses(listSchema, 200),
      },
    },
    async (request) => {
      const { org, project } = request.params;
      return filteredListingPage(baseUri, `/v1/resources/${org}/${project}`, request.query, (from, size, filters) =>
        resources.list(request.params, from, size, callerOf(request), filters),
      );
    },
  );

  // Nexus scripts list through the schema segment (`/resources/{org}/{project}/_`), else a 405.
  api.get(
    '/resources/:org/:project/:schema',
    {
      schema: {
        summary: "List a project's resources under a schema",
        description:
          'As GET /v1/resources/{org}/{project}, under the schema named: under _ every entity, files included; under the unconstrained schema ' +
          '(resource, or its IRI) resources only, as files have their own schema; any other schema is 404 SchemaNotFound. Needs resources/read.',
        params: schemaParams,
        querystring: filteredListingQuery,
        response: responses(listSchema, 200),
      },
    },
    async (request) => {
      const { org, project, schema } = request.params;
      assertUnconstrained(schema);
      return filteredListingPage(baseUri, `/v1/resources/${org}/${project}/${encodeURIComponent(schema)}`, request.query, (from, size, filters) =>
        resources.list({ org, project }, from, size, callerOf(request), filters, kindReadUnder(schema)),
      );
    },
  );

  const create = async (params: { org: string; project: string }, payload: JsonObject, identity: ReturnType<typeof callerOf>) => {
    return writeResponse(await resources.create(params, undefined, payload, identity), baseUri);
  };

  api.post(
    '/resources/:org/:project',
    {
      bodyLimit: payloadLimit,
      preParsing: writers,
      schema: {
        summary: 'Create a resource (unconstrained schema)',
        description: CREATION,
        params: projectParams,
        querystring: { ...noQuery, properties: {} },
        body: payloadSchema,
        response: responses(entitySchema, 201),
      },
    },
    async (request, reply) => {
      await collectionPreconditionsOf(request, request.params);
      return reply.code(201).send(await create(request.params, request.body, callerOf(request)));
    },
  );

  api.post(
    '/resources/:org/:project/:schema',
    {
      bodyLimit: payloadLimit,
      preParsing: writers,
      schema: {
        summary: 'Create a resource under a schema',
        description: `As POST /v1/resources/{org}/{project}, under the schema named. ${CREATION}`,
        params: schemaParams,
        querystring: { ...noQuery, properties: {} },
        body: payloadSchema,
        response: responses(entitySchema, 201),
      },
    },
    async (request, reply) => {
      assertUnconstrained(request.params.schema);
      await collectionPreconditionsOf(request, request.params);
      return reply.code(201).send(await create(request.params, request.body, callerOf(request)));
    },
  );

  api.put(
    '/resources/:org/:project/:schema/:id',
    {
      bodyLimit: payloadLimit,
      preParsing: writers,
      schema: {
        summary: 'Create a resource with its id, or update it',
        description:
          'Without rev, creates the resource under the id of the path (201; 409 ResourceAlreadyExists when it is taken); with rev, its current revision, ' +
          `replaces its payload (200): a payload equal to the latest makes no revision. JSON-LD, at most ${PAYLOAD_LIMIT_MIB} MiB. ` +
          CHANGE,
        params: resourceParams,
        querystring: updateRevQuery,
        body: payloadSchema,
        response: responses(entitySchema, 200, 201),
      },
    },
    async (request, reply) => {
      const { schema, id, ...ref } = request.params;
      assertUnconstrained(schema);
      const rev = request.query.rev;
      await preconditionsOf(request, ref, id, createOrUpdate(rev));
      const identity = callerOf(request);
      const state =
        rev === undefined ? await resources.create(ref, id, request.body, identity) : await resources.update(ref, id, rev, request.body, identity);
      return reply.code(rev === undefined ? 201 : 200).send(writeResponse(state, baseUri));
    },
  );

  api.get(
    '/resources/:org/:project/:schema/:id',
    {
      // JSON-LD or RDF, by Accept.
      config: { variesByAccept: true },
      schema: {
        summary: 'Read a resource',
        description:
          'The latest revision, or the one rev or tag names, as its Accept asks: JSON-LD (compacted, or expanded with format=expanded), ' +
          'N-Triples, N-Quads or Graphviz dot; 406 for any other. Under _ a file answers its metadata. Needs resources/read.',
        params: resourceParams,
        querystring: {
          ...selectorQuery,
          properties: {
            ...selectorQuery.properties,
            format: described({ enum: ['compacted', 'expanded'] }, 'The JSON-LD form: compacted (default) or expanded (an array); RDF answers ignore it.'),
          },
        },
        response: { 200: representationResponse, ...errorResponses },
        responseHeaders: { 200: { Vary: VARY_ON_ACCEPT }, ...REFUSALS_VARY_ON_ACCEPT },
      },
    },
    async (request, reply) => {
      const { schema, id, ...ref } = request.params;
      assertUnconstrained(schema);
      const { state, project } = await resources.fetch(ref, id, selectorFrom(request.query), callerOf(request), kindReadUnder(schema));
      const offer = negotiate(request.headers.accept, OFFERS);
      if (offer === null) throw new PlatformError(406, 'NotAcceptable', `Acceptable media types are ${OFFERS.join(', ')}.`);
      const view = entityView(state, project, baseUri);
      const rdf = RDF_FORMATS[offer];
      if (rdf) return reply.type(FORMAT_MEDIA_TYPES[rdf]).send(await renderer.text(view, rdf, renderCallerOfRequest(request)));
      return reply.type(offer).send(await renderer.json(view, request.query.format ?? 'compacted', renderCallerOfRequest(request)));
    },
  );

  api.get(
    '/resources/:org/:project/:schema/:id/source',
    {
      schema: {
        summary: "Read a resource's payload as it was sent",
        description:
          'The payload of the latest revision, or of the one rev or tag names, as it was written; with annotate=true, with its metadata. ' +
          'A file has none: 404 ResourceNotFound. Needs resources/read.',
        params: resourceParams,
        querystring: {
          ...selectorQuery,
          properties: {
            ...selectorQuery.properties,
            annotate: described({ type: 'boolean' }, 'true: add the metadata (_self, _rev, _createdAt...) to the payload; default false.'),
          },
        },
        response: responses(documentSchema, 200),
      },
    },
    async (request, reply) => {
      const { schema, id, ...ref } = request.params;
      assertUnconstrained(schema);
      const { state, project } = await resources.fetch(ref, id, selectorFrom(request.query), callerOf(request));
      const format = request.query.annotate ? 'annotated-source' : 'source';
      return reply.type('application/json; charset=utf-8').send(await renderer.json(entityView(state, project, baseUri), format, renderCallerOfRequest(request)));
    },
  );

  api.get(
    '/resources/:org/:project/:schema/:id/tags',
    {
      schema: {
        summary: "List a resource's tags",
        description: 'The tags of the latest revision, or of the one rev or tag names, each with the revision it names. Under _ a file answers its tags. Needs resources/read.',
        params: resourceParams,
        querystring: selectorQuery,
        response: responses(tagListSchema, 200),
      },
    },
    async (request) => {
      const { schema, id, ...ref } = request.params;
      assertUnconstrained(schema);
      const { state } = await resources.fetch(ref, id, selectorFrom(request.query), callerOf(request), kindReadUnder(schema));
      return tagList(state);
    },
  );

  api.post(
    '/resources/:org/:project/:schema/:id/tags',
    {
      bodyLimit: 64 * 1024,
      preParsing: writers,
      schema: {
        summary: 'Tag a revision of a resource',
        description:
          `Sets the tag (1 to ${MAX_TAG_LENGTH} printable ASCII characters, not latest) to the revision rev of the body, in a new revision; ` +
          'a tag set to that revision already makes none. ' +
          CHANGE,
        params: resourceParams,
        querystring: requiredRevQuery,
        body: { type: 'object', required: ['tag', 'rev'], additionalProperties: false, properties: { tag, rev: revSchema } },
        response: responses(entitySchema, 201),
      },
    },
    async (request, reply) => {
      const { schema, id, ...ref } = request.params;
      assertUnconstrained(schema);
      await preconditionsOf(request, ref, id, { kind: 'tag', rev: request.query.rev });
      const state = await resources.tag(ref, id, request.query.rev, request.body.tag, request.body.rev, callerOf(request));
      return reply.code(201).send(writeResponse(state, baseUri));
    },
  );

  api.delete(
    '/resources/:org/:project/:schema/:id/tags/:tag',
    {
      preParsing: writers,
      schema: {
        summary: "Remove a resource's tag",
        description: `Removes the tag in a new revision. ${CHANGE}`,
        params: withTagParam(resourceParams),
        querystring: requiredRevQuery,
        response: responses(entitySchema, 200),
      },
    },
    async (request) => {
      const { schema, id, tag: name, ...ref } = request.params;
      assertUnconstrained(schema);
      await preconditionsOf(request, ref, id, { kind: 'untag', rev: request.query.rev, tag: name });
      return writeResponse(await resources.untag(ref, id, request.query.rev, name, callerOf(request)), baseUri);
    },
  );

  api.delete(
    '/resources/:org/:project/:schema/:id',
    {
      preParsing: writers,
      schema: {
        summary: 'Deprecate a resource',
        description: `A new revision with _deprecated true: the resource takes no change until it is undeprecated, and is still read. ${CHANGE}`,
        params: resourceParams,
        querystring: requiredRevQuery,
        response: responses(entitySchema, 200),
      },
    },
    async (request) => {
      const { schema, id, ...ref } = request.params;
      assertUnconstrained(schema);
      await preconditionsOf(request, ref, id, { kind: 'deprecate', rev: request.query.rev });
      return writeResponse(await resources.deprecate(ref, id, request.query.rev, callerOf(request)), baseUri);
    },
  );

  api.put(
    '/resources/:org/:project/:schema/:id/undeprecate',
    {
      preParsing: writers,
      schema: {
        summary: 'Undeprecate a resource',
        description: `A new revision with _deprecated false; 400 ResourceIsNotDeprecated when it is not deprecated. ${CHANGE}`,
        params: resourceParams,
        querystring: requiredRevQuery,
        response: responses(entitySchema, 200),
      },
    },
    async (request) => {
      const { schema, id, ...ref } = request.params;
      assertUnconstrained(schema);
      await preconditionsOf(request, ref, id, { kind: 'undeprecate', rev: request.query.rev });
      return writeResponse(await resources.undeprecate(ref, id, request.query.rev, callerOf(request)), baseUri);
    },
  );
}
