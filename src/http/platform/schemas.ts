/** JSON schemas shared by the /v1 routes. */
import type { FastifyInstance, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { alternatives } from '../../alternatives.js';
import { METADATA_CONTEXT } from '../../platform/contexts.js';
import { LABEL_PATTERN } from '../../platform/refs.js';
import { MAX_REVISION, type EntityState } from '../../platform/revisions.js';
import type { DocumentedBody, DocumentedHeader } from '../openapi-transform.js';
import { errorSchema } from './errors.js';

/** A parameter's schema with the description /openapi.json shows for it (validation ignores the keyword). */
export function described<const Schema extends object>(schema: Schema, description: string) {
  return { ...schema, description } as const;
}

const label = { type: 'string', pattern: LABEL_PATTERN } as const;
const LABEL_RULE = '1 to 64 characters of A-Z a-z 0-9 _ -';
const orgLabel = described(label, `The organization's label: ${LABEL_RULE}.`);
const projectLabel = described(label, `The project's label within the organization: ${LABEL_RULE}.`);

export const orgParams = { type: 'object', required: ['org'], properties: { org: orgLabel } } as const;

export const projectParams = { type: 'object', required: ['org', 'project'], properties: { org: orgLabel, project: projectLabel } } as const;

export const idParams = {
  type: 'object',
  required: ['org', 'project', 'id'],
  properties: {
    org: orgLabel,
    project: projectLabel,
    id: described(
      { type: 'string', minLength: 1 },
      "The id, as the last segment of its _self: an absolute IRI (percent-encoded), a compact IRI 'prefix:rest' of one of the project's API mappings, or a name resolved against the project's base.",
    ),
  },
} as const;

export const rev = { type: 'integer', minimum: 1, maximum: MAX_REVISION } as const;
/** Deepest page start of a listing: a listing pages by skipping entries, and LMDB counts the skip in 32 bits. */
export const MAX_LISTING_FROM = 1_000_000;
/** A tag being written: its rules are the platform's (platform/tags.ts), which answer which one a name breaks. */
export const tag = { type: 'string' } as const;
/** A tag read or deleted: any name a tag may have been stored under, before the rules of new tags too. */
const storedTag = { type: 'string', minLength: 1, maxLength: 256 } as const;

/**
 * An entity's path parameters and a last segment `tag` (the tag deletion routes). The type parameters
 * are the schema's parts, not the whole schema: spreading an object of a generic type would widen its
 * `required` to `string[]`, and the type provider would then take `request.params.tag` for optional.
 */
export function withTagParam<const Required extends readonly string[], const Properties extends object>(params: {
  readonly type: 'object';
  readonly required: Required;
  readonly properties: Properties;
}) {
  return {
    type: 'object',
    required: [...params.required, 'tag'],
    properties: { ...params.properties, tag: described(storedTag, 'The tag to remove; 404 TagNotFound when the entity does not hold it.') },
  } as const;
}

const STALE_REV = 'a stale one is 409 IncorrectRev';
/** `rev` of a read: a past revision. */
const readRev = described(rev, 'The revision to read instead of the latest; one past the latest is 404 RevisionNotFound.');
/** `rev` of a create-or-update PUT. */
export const updateRev = described(rev, `The current revision (_rev), to update; without it the PUT creates, and ${STALE_REV}.`);
/** `rev` of a change that names the revision it changes. */
const currentRev = described(rev, `The current revision (_rev) of what is changed; ${STALE_REV}.`);

/**
 * Query strings take only the parameters a route names: an unknown one (a Nexus listing parameter this
 * server lacks, such as `sort`, or `tag` on an organization) is refused rather than silently ignored.
 */
export const noQuery = { type: 'object', additionalProperties: false } as const;
export const revQuery = { ...noQuery, properties: { rev: readRev } } as const;
export const updateRevQuery = { ...noQuery, properties: { rev: updateRev } } as const;
export const requiredRevQuery = { ...noQuery, required: ['rev'], properties: { rev: currentRev } } as const;
export const selectorQuery = {
  ...noQuery,
  properties: {
    rev: described(rev, `${readRev.description} Not with tag.`),
    tag: described(storedTag, 'A tag: read the revision it names instead of the latest; one not held is 404 TagNotFound. Not with rev.'),
  },
} as const;
/** A page of a listing: `from` entries skipped, at most `size` returned (`defaultSize` without one). */
export function listingPageQuery<const DefaultSize extends number>(defaultSize: DefaultSize) {
  return {
    from: described(
      { type: 'integer', minimum: 0, maximum: MAX_LISTING_FROM, default: 0 },
      `Entries skipped before the page: 0 (default) to ${MAX_LISTING_FROM.toLocaleString('en')}; _next links the page after it.`,
    ),
    size: described({ type: 'integer', minimum: 1, maximum: 1000, default: defaultSize }, `Entries in the page: 1 to 1000; default ${defaultSize}.`),
  } as const;
}
/** Only deprecated entities, or only others. */
export const deprecatedFilter = described({ type: 'boolean' }, 'true: only deprecated entries; false: only the others. Default: both.');
const listingQuery = { ...noQuery, properties: listingPageQuery(20) } as const;
/** Who created or last updated an entity, as a listing filters on it. */
const subjectFilter = (which: 'created' | 'last updated') =>
  described(
    { type: 'string', minLength: 1, maxLength: 2048 },
    `Only entries ${which} by this subject, an IRI as _createdBy shows it ({public URL}/v1/realms/{realm}/users/{subject}); one that is not an IRI is 400.`,
  );
/** A page of the resource or file listing, only the entities passing every filter given (platform/listing-filter.ts). */
export const filteredListingQuery = {
  ...listingQuery,
  properties: {
    ...listingQuery.properties,
    deprecated: deprecatedFilter,
    type: described(
      { type: 'string', minLength: 1, maxLength: 1024 },
      "Only entries of this type: an IRI, a compact IRI of an API mapping (nxv:File: the files) or a term of the project's vocab.",
    ),
    createdBy: subjectFilter('created'),
    updatedBy: subjectFilter('last updated'),
  },
} as const;

/**
 * Schemas several /v1 routes answer with: registered once on the /v1 context
 * (`addSharedSchemas`), referenced by `$ref`, and listed once in the OpenAPI
 * document's components.
 */
const ENTITY_ID = 'PlatformEntity';
const ERROR_ID = 'PlatformError';

export function addSharedSchemas(app: FastifyInstance): void {
  app.addSchema({ $id: ERROR_ID, ...errorSchema });
  app.addSchema({ $id: ENTITY_ID, ...entityDefinition });
}

/** Every route answers errors in the Nexus shape. */
export const errorResponses = { '4xx': { $ref: `${ERROR_ID}#` }, '5xx': { $ref: `${ERROR_ID}#` } } as const;

/** One refusal a route documents on its own (beside the 4xx every route may answer), in the Nexus shape. */
export function errorResponse(description: string): object {
  return { description, $ref: `${ERROR_ID}#` };
}

/** A route's response schemas: `schema` for each success code, errors in the Nexus shape. */
export function responses(schema: object, ...codes: number[]): Record<string, object> {
  return { ...Object.fromEntries(codes.map((code) => [code, schema])), ...errorResponses };
}

/** Bytes sent as they are (a file's content, a ZIP): documented only, as the routes send them as streams, which fastify never serialises. */
export const bytesSchema = { type: 'string', format: 'binary' } as const;

/**
 * A file upload's body, documented only (fastify does not validate it: files.ts streams the part to the store).
 * The handler reads the `file` part alone: other fields are skipped, a second file part is refused.
 */
export const fileUploadBody: DocumentedBody = {
  mediaType: 'multipart/form-data',
  schema: {
    type: 'object',
    required: ['file'],
    properties: {
      file: {
        ...bytesSchema,
        description: "The file's bytes: the part's filename becomes _filename, its Content-Type _mediaType. One file part per request.",
      },
    },
  },
};

/**
 * A response documented per media type (OpenAPI `content`), for a route whose answer is not always JSON.
 * Fastify serialises a JSON answer with the schema declared for its Content-Type (none for other types,
 * nor for streams and text), so JSON declared here is serialised as a plain response schema would be.
 */
export function mediaTypeResponse(description: string, schemas: Record<string, object>): object {
  return { description, content: Object.fromEntries(Object.entries(schemas).map(([mediaType, schema]) => [mediaType, { schema }])) };
}

/** A header a /v1 route reads or sends, as the document shows it (the route's `requestHeaders`, `responseHeaders`). */
export function header(description: string, schema: object = { type: 'string' }): DocumentedHeader {
  return { description, schema };
}

/** The Vary of a route that negotiates its representation by Accept (negotiation.ts: variesByAccept). */
export const VARY_ON_ACCEPT = header("Accept, after Origin when --cors-origins is set: the representation depends on the request's Accept.");
/** The same Vary on the refusals of such a route, which carry it too (a cache keeps them apart as it does the answers). */
const VARY_ON_REFUSALS = header("Accept, after Origin when --cors-origins is set: sent on every answer of this operation, whose representation depends on the request's Accept.");
export const REFUSALS_VARY_ON_ACCEPT = { '4XX': { Vary: VARY_ON_REFUSALS }, '5XX': { Vary: VARY_ON_REFUSALS } };

/** Metadata under the two JSON types the download routes negotiate. */
export function jsonMetadata(schema: object): Record<string, object> {
  return { 'application/ld+json': schema, 'application/json': schema };
}

/** The fields of every stored entity's metadata (organizations, projects, ACLs, resources, files, archives). */
export const common = {
  '@context': {},
  '@id': { type: 'string' },
  '@type': {},
  _self: { type: 'string' },
  _rev: { type: 'integer' },
  _deprecated: { type: 'boolean' },
  _createdAt: { type: 'string' },
  _createdBy: { type: 'string' },
  _updatedAt: { type: 'string' },
  _updatedBy: { type: 'string' },
} as const;

/** Resource and file metadata; payload fields (any JSON) pass through. */
const entityDefinition = {
  type: 'object',
  additionalProperties: true,
  properties: {
    ...common,
    _project: { type: 'string' },
    _constrainedBy: { type: 'string' },
    _bytes: { type: 'integer' },
    _digest: { type: 'object', properties: { _algorithm: { type: 'string' }, _value: { type: 'string' } } },
    _filename: { type: 'string' },
    _mediaType: { type: 'string' },
  },
} as const;

export const entitySchema = { $ref: `${ENTITY_ID}#` } as const;

/** Any JSON-LD document (compacted, annotated or source). */
export const documentSchema = { type: 'object', additionalProperties: true } as const;

export const orgSchema = {
  type: 'object',
  properties: { ...common, _label: { type: 'string' }, _uuid: { type: 'string' }, description: { type: 'string' } },
} as const;

const apiMappings = {
  type: 'array',
  maxItems: 100,
  items: {
    type: 'object',
    required: ['prefix', 'namespace'],
    additionalProperties: false,
    properties: { prefix: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$' }, namespace: { type: 'string', minLength: 1, maxLength: 1024 } },
  },
} as const;

export const projectBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    description: { type: 'string', maxLength: 10_000 },
    base: { type: 'string', minLength: 1, maxLength: 1024 },
    vocab: { type: 'string', minLength: 1, maxLength: 1024 },
    apiMappings,
  },
} as const;

export const projectSchema = {
  type: 'object',
  properties: {
    ...common,
    _label: { type: 'string' },
    _organizationLabel: { type: 'string' },
    _uuid: { type: 'string' },
    _markedForDeletion: { type: 'boolean' },
    _readOnly: { type: 'boolean' },
    description: { type: 'string' },
    base: { type: 'string' },
    vocab: { type: 'string' },
    apiMappings,
    _effectiveApiMappings: apiMappings,
  },
} as const;

const text = { type: 'string' } as const;

/** The Nexus identity objects, one per `@type`, with the fields each needs. */
const identityObjects = [
  { type: 'object', required: ['@type'], properties: { '@type': { const: 'Anonymous' } } },
  { type: 'object', required: ['@type'], properties: { '@type': { const: 'Authenticated' }, realm: text } },
  { type: 'object', required: ['@type', 'realm', 'subject'], properties: { '@type': { const: 'User' }, realm: text, subject: text } },
  { type: 'object', required: ['@type', 'realm', 'group'], properties: { '@type': { const: 'Group' }, realm: text, group: text } },
] as const;

/**
 * The Nexus identity objects written without `@type`, as Nexus's own ACL examples write them: its fields say which
 * (platform/identities.ts reads them so). No field besides: an object naming both a subject and a group says neither.
 */
const untypedIdentityObjects = [
  { type: 'object', required: ['realm', 'subject'], additionalProperties: false, properties: { realm: text, subject: text } },
  { type: 'object', required: ['realm', 'group'], additionalProperties: false, properties: { realm: text, group: text } },
  { type: 'object', required: ['realm'], additionalProperties: false, properties: { realm: text } },
] as const;

/** An ACL entry's identity: the auth-file string form or a Nexus object (platform/identities.ts reads both). */
const identity = { anyOf: [{ type: 'string', minLength: 1 }, ...identityObjects, ...untypedIdentityObjects] } as const;

/** "User (realm, subject)": a `@type` and its fields, as the identity schema above requires them. */
function identityForm({ required, properties }: (typeof identityObjects)[number]): string {
  const fields = Object.keys(properties).filter((field) => field !== '@type');
  const needed = fields.filter((field) => (required as readonly string[]).includes(field));
  const optional = fields.filter((field) => !needed.includes(field)).map((field) => `${field} optional`);
  const listed = [...needed, ...optional];
  return listed.length === 0 ? properties['@type'].const : `${properties['@type'].const} (${listed.join(', ')})`;
}

const IDENTITY_FORMS = identityObjects.map(identityForm);
const ACCEPTED_IDENTITIES =
  `must be an auth-file principal string (such as 'anonymous' or 'local/alice') or an object whose '@type' is ` +
  `${alternatives(IDENTITY_FORMS)}; without '@type', {realm, subject} is a User, {realm, group} a Group and {realm} Authenticated`;

/** Where an ACL entry's identity, or a field of it, failed the schema: `/acl/{n}/identity`. */
const IDENTITY_PATH = /^\/acl\/\d+\/identity(?=\/|$)/;

/**
 * The validation message of an ACL write. A bad identity fails every alternative of its `anyOf`, and Ajv
 * reports each failure and then the `anyOf`: the caller is told once what an identity may be instead.
 * Other failures read as fastify writes them.
 */
export function aclBodyErrorFormatter(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const identityPath = errors.map((error) => IDENTITY_PATH.exec(error.instancePath)?.[0]).find((path) => path !== undefined);
  if (identityPath !== undefined) return new Error(`${dataVar}${identityPath} ${ACCEPTED_IDENTITIES}`);
  return new Error(errors.map((error) => `${dataVar}${error.instancePath} ${error.message}`).join(', '));
}

export const aclEntries = {
  type: 'array',
  maxItems: 1000,
  items: {
    type: 'object',
    required: ['identity', 'permissions'],
    additionalProperties: false,
    properties: { identity, permissions: { type: 'array', maxItems: 100, items: { type: 'string' } } },
  },
} as const;

export const aclSchema = {
  type: 'object',
  properties: {
    ...common,
    _path: { type: 'string' },
    _source: { type: 'string' },
    acl: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          identity: { type: 'object', additionalProperties: { type: 'string' } },
          permissions: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

export const aclListSchema = {
  type: 'object',
  properties: { '@context': {}, _total: { type: 'integer' }, _results: { type: 'array', items: aclSchema } },
} as const;

/** `_next`: the next page's URL, on every page but the last (nextPageLink). */
export const listSchema = {
  type: 'object',
  properties: { '@context': {}, _total: { type: 'integer' }, _results: { type: 'array', items: entitySchema }, _next: { type: 'string' } },
} as const;

export const tagListSchema = {
  type: 'object',
  properties: {
    '@context': {},
    tags: { type: 'array', items: { type: 'object', properties: { tag: { type: 'string' }, rev: { type: 'integer' } } } },
  },
} as const;

/** The tags of a resource or file, as `GET …/tags` answers them. */
export function tagList(state: Pick<EntityState, 'tags'>) {
  return { '@context': [METADATA_CONTEXT], tags: Object.entries(state.tags).map(([name, target]) => ({ tag: name, rev: target })) };
}

/** A PUT without a body means "no fields", so `curl -X PUT …/orgs/x` creates an organization. */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
