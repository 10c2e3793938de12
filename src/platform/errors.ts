/**
 * Typed rejections of the platform. Each carries the HTTP status and the
 * Nexus error `@type`, so the HTTP layer maps them without knowing every case,
 * and the literature API can map the two authentication errors to its own
 * vocabulary.
 */
export class PlatformError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly reason: string,
    /** Extra explanation, e.g. which permission is missing where. */
    readonly details?: string,
  ) {
    super(reason);
    this.name = type;
  }
}

/** A refusal that lifts after a wait the server can tell (a quota until an archive expires): answered with `Retry-After`. */
export class RetryLaterError extends PlatformError {
  constructor(
    status: number,
    type: string,
    reason: string,
    /** Whole seconds, at least 1. */
    readonly retryAfterSeconds: number,
  ) {
    super(status, type, reason);
  }
}

/** 401: the bearer token is unknown, invalid or malformed. */
export class AuthenticationError extends PlatformError {
  constructor(type: 'InvalidAccessToken' | 'InvalidAccessTokenFormat', reason: string) {
    super(401, type, reason);
  }
}

/**
 * 503: the platform store (PostgreSQL) cannot be reached, or dropped the connection mid-request;
 * a write in flight was rolled back or never began. The cause goes to the log, not to the client.
 */
export class StoreUnavailableError extends RetryLaterError {
  /** Seconds a client is told to wait before retrying. */
  static readonly RETRY_AFTER_SECONDS = 5;

  constructor(cause: Error, reason = 'The platform store cannot be reached; retry later.') {
    super(503, 'ServiceUnavailable', reason, StoreUnavailableError.RETRY_AFTER_SECONDS);
    this.cause = cause;
  }
}

/**
 * 503: the file contents' directory is not the one this server claimed at start (gone, as a shared mount that
 * dropped, or another in its place, as an empty volume mounted there). A condition of the moment for the
 * operator to mend, not a file that is gone (404) nor a bug (500).
 */
export class FileStorageUnavailableError extends RetryLaterError {
  static readonly RETRY_AFTER_SECONDS = 5;

  constructor() {
    super(503, 'ServiceUnavailable', "The server's file storage (--blob-dir) is not available; retry later.", FileStorageUnavailableError.RETRY_AFTER_SECONDS);
  }
}

/** 403: the caller is known but lacks a permission on an ACL address. */
export class AuthorizationError extends PlatformError {
  constructor(
    readonly permission: string,
    readonly address: string,
  ) {
    super(
      403,
      'AuthorizationFailed',
      'The supplied authentication is not authorized to access this resource.',
      `Permission '${permission}' is missing on '${address}'.`,
    );
  }
}

export const rejections = {
  decodingFailed: (problems: readonly string[]) => new PlatformError(400, 'DecodingFailed', problems.join('\n')),
  /** `pointer` (a JSON Pointer, see loneSurrogatePointer) into `what`: stored as UTF-8, the text would read U+FFFD. */
  loneSurrogate: (what: string, pointer: string) =>
    new PlatformError(400, 'DecodingFailed', `The ${what} holds a lone surrogate at ${pointer}: it is not well-formed Unicode.`),
  invalidJsonLd: (details: string) =>
    new PlatformError(400, 'InvalidJsonLdFormat', 'The provided JSON-LD document could not be processed.', details),
  /** `problem` says why, when it is more than the id not being an IRI (its length: iri.ts). */
  invalidResourceId: (id: string, problem: string | null = null) =>
    new PlatformError(400, 'InvalidResourceId', `Resource identifier '${id}' cannot be expanded to an Iri${problem === null ? '' : `: ${problem}`}.`),
  /** Written alike, the two ids can still differ once expanded (`..` in a URL is a segment, in a payload a reference): then both are shown. */
  unexpectedId: (id: string, payloadId: string, expanded: { fromPath: string; fromPayload: string }) =>
    new PlatformError(
      400,
      'UnexpectedId',
      `Id '${id}' does not match the id on payload '${payloadId}'.` +
        (id === payloadId ? ` The URL's names '${expanded.fromPath}' (a path segment); the payload's resolves to '${expanded.fromPayload}' (a reference).` : ''),
    ),
  orgNotFound: (org: string) => new PlatformError(404, 'OrganizationNotFound', `Organization '${org}' not found.`),
  orgAlreadyExists: (org: string) => new PlatformError(409, 'OrganizationAlreadyExists', `Organization '${org}' already exists.`),
  orgIsDeprecated: (org: string) => new PlatformError(400, 'OrganizationIsDeprecated', `Organization '${org}' is deprecated.`),
  orgIsNotDeprecated: (org: string) => new PlatformError(400, 'OrganizationIsNotDeprecated', `Organization '${org}' is not deprecated.`),
  projectNotFound: (project: string) => new PlatformError(404, 'ProjectNotFound', `Project '${project}' not found.`),
  projectAlreadyExists: (project: string) => new PlatformError(409, 'ProjectAlreadyExists', `Project '${project}' already exists.`),
  projectIsDeprecated: (project: string) => new PlatformError(400, 'ProjectIsDeprecated', `Project '${project}' is deprecated.`),
  projectIsNotDeprecated: (project: string) => new PlatformError(400, 'ProjectIsNotDeprecated', `Project '${project}' is not deprecated.`),
  projectIsMarkedForDeletion: (project: string) =>
    new PlatformError(400, 'ProjectIsMarkedForDeletion', `Project '${project}' is marked for deletion.`),
  projectIsReadOnly: (project: string) =>
    new PlatformError(400, 'ProjectIsReadOnly', `Project '${project}' is read-only: its resources come from the literature index.`),
  orgHoldsReadOnlyProject: (org: string) =>
    new PlatformError(400, 'ProjectIsReadOnly', `Organization '${org}' holds the read-only literature project: it cannot be deprecated.`),
  resourceNotFound: (id: string, project: string) =>
    new PlatformError(404, 'ResourceNotFound', `Resource '${id}' not found in project '${project}'.`),
  /** A literature article asked for by an id with a scheme (`scifact:5836`, from an `--id-prefix` ending in a colon), which reads as that IRI. */
  articleIdReadAsIri: (id: string, project: string, fullId: string) =>
    new PlatformError(
      404,
      'ResourceNotFound',
      `Resource '${id}' not found in project '${project}'.`,
      `An id with a scheme is read as that IRI, not as a short id: the article '${id}' is at its full @id, '${fullId}' (percent-encoded in a URL).`,
    ),
  fileNotFound: (id: string, project: string) => new PlatformError(404, 'FileNotFound', `File '${id}' not found in project '${project}'.`),
  /** A file id another upload is creating: it may never exist (that upload may fail), so "already exists" would mislead. */
  fileCreationInProgress: (id: string, project: string) =>
    new PlatformError(409, 'ResourceAlreadyExists', `File '${id}' is being created in project '${project}' by another upload in progress; retry once it has ended.`),
  resourceAlreadyExists: (id: string, project: string) =>
    new PlatformError(409, 'ResourceAlreadyExists', `Resource '${id}' already exists in project '${project}'.`),
  resourceIsDeprecated: (id: string) => new PlatformError(400, 'ResourceIsDeprecated', `Resource '${id}' is deprecated.`),
  resourceIsNotDeprecated: (id: string) => new PlatformError(400, 'ResourceIsNotDeprecated', `Resource '${id}' is not deprecated.`),
  /** A file's own words, as Nexus's: a script matching on `@type` must not meet ResourceIsDeprecated for a file. */
  fileIsDeprecated: (id: string) => new PlatformError(400, 'FileIsDeprecated', `File '${id}' is deprecated.`),
  fileIsNotDeprecated: (id: string) => new PlatformError(400, 'FileIsNotDeprecated', `File '${id}' is not deprecated.`),
  incorrectRev: (provided: number, expected: number) =>
    new PlatformError(
      409,
      'IncorrectRev',
      `Incorrect revision '${provided}' provided, expected '${expected}', the resource may have been updated since last seen.`,
    ),
  revisionNotFound: (requested: number, latest: number) =>
    new PlatformError(404, 'RevisionNotFound', `Revision requested '${requested}' not found, last known revision is '${latest}'.`),
  /** A revision below the earliest kept: the organization or project was created before its superseded states were kept (past-states.ts). */
  revisionNotKept: (requested: number, earliestKept: number) =>
    new PlatformError(
      404,
      'RevisionNotFound',
      `Revision requested '${requested}' not found: it predates the keeping of past revisions, the earliest kept is '${earliestKept}'.`,
    ),
  tagNotFound: (tag: string) => new PlatformError(404, 'TagNotFound', `Tag requested '${tag}' not found.`),
  /** A tag written with a name Nexus's UserTag refuses (tags.ts): `rule` says which. */
  invalidTagName: (rule: string) => new PlatformError(400, 'DecodingFailed', `Invalid tag name: ${rule}.`),
  /** An ACL change with no entry, or an entry without permissions: it would grant or take away nothing. */
  aclCannotContainEmptyPermissionCollection: (address: string) =>
    new PlatformError(400, 'AclCannotContainEmptyPermissionCollection', `The ACL address '${address}' cannot contain an empty permission collection.`),
  /** An `Append` of grants all held already, or a `Subtract` of grants none of which is held. */
  nothingToBeUpdated: (address: string) =>
    new PlatformError(400, 'NothingToBeUpdated', `The ACL on address '${address}' will not change after applying the provided update.`),
  /** A subtraction from, or deletion of, the ACL of an address where none was ever written (a 404, as in Nexus). */
  aclNotFound: (address: string) => new PlatformError(404, 'AclNotFound', `The ACL on address '${address}' does not exist.`),
  /** A deletion of an ACL that grants nothing already. */
  aclIsEmpty: (address: string) => new PlatformError(400, 'AclIsEmpty', `The ACL on address '${address}' is empty.`),
  unknownPermissions: (permissions: readonly string[]) =>
    new PlatformError(400, 'UnknownPermissions', `Permissions '${permissions.join("', '")}' are not known.`),
  storageNotFound: (storage: string) => new PlatformError(404, 'StorageNotFound', `Storage '${storage}' not found.`),
  invalidFile: (reason: string) => new PlatformError(400, 'InvalidFile', reason),
  /** The file's metadata exists but its bytes are gone from the content store (deleted or lost outside the server). */
  fileContentMissing: (id: string, project: string) =>
    new PlatformError(404, 'FileContentNotFound', `The content of file '${id}' in project '${project}' is missing from the server's storage.`),
  /** `damage`: what was found, as "400 bytes where 1000 were stored". */
  fileContentDamaged: (id: string, project: string, damage: string) =>
    new PlatformError(404, 'FileContentNotFound', `The content of file '${id}' in project '${project}' is damaged in the server's storage: ${damage}.`),
  fileTooLarge: (limit: number) =>
    new PlatformError(413, 'FileTooLarge', `The file exceeds the maximum allowed size of ${limit} bytes.`),
};
