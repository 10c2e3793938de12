/**
 * The small resource platform: identities, ACLs, organizations, projects,
 * resources, files and the built-in literature project, kept under
 * `<dataDir>/platform` by default (the LMDB store, unless --platform-store
 * names PostgreSQL; the file contents, unless --blob-dir names another
 * folder). Every service
 * checks the caller's permissions itself, so no route can forget a check.
 * Archives are built over the platform in `src/services.ts`.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { AclService } from './acls.js';
import type { Audit } from './audit.js';
import { Authenticator } from './authentication.js';
import { claimFileContentsDirectory, startBlobCollection } from './blob-directory.js';
import type { Claim } from './blob-owner.js';
import { BlobStore } from './blobs.js';
import { FileService } from './files.js';
import { type Identity, OPERATOR } from './identities.js';
import { LiteratureResources, type LiteratureSource } from './literature.js';
import { OrgService } from './orgs.js';
import { isPermission } from './permissions.js';
import { ProjectService } from './projects.js';
import { parseProjectRef, projectAddress } from './refs.js';
import { DEFAULT_MAX_RENDERED_BYTES, type Renderer, createRenderer } from './renderer.js';
import { ResourceService } from './resources.js';
import { RevisionStore } from './revisions.js';
import { openPlatformStore } from './store/open.js';
import type { Store } from './store/store.js';
import { printableStoreUrl } from './store/printable-url.js';

export { AuthenticationError, AuthorizationError } from './errors.js';
export { OPERATOR, type Identity } from './identities.js';

/** The subset of a pino logger the platform uses. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(details: object, message: string): void;
}

export interface PlatformOptions {
  dataDir: string;
  /** `lmdb` (default: under `<dataDir>/platform/store`) or a PostgreSQL URL shared by replicas. */
  platformStore?: string;
  /** Where file contents live (default, also when empty: `<dataDir>/platform/files`); replicas share it. */
  blobDir?: string | null;
  authFile: string | null;
  /** `org/project` of the built-in literature project. */
  literatureProject: string;
  literature: LiteratureSource;
  /** Public URL of the server, without a trailing slash: prefix of `_self`, ids and redirects. */
  baseUri?: string;
  /** Largest accepted upload, in bytes (--max-upload-bytes; openServices gives its default). */
  maxFileBytes: number;
  /** Threads rendering representations (0 = inline on the main thread); default one per spare core, at most 2. */
  renderThreads?: number;
  /** Longest representation of one resource, in bytes. */
  maxRenderedBytes?: number;
  clock?: () => number;
  logger?: Logger;
}

const DEFAULT_BASE_URI = 'http://localhost:8080';

export interface Platform {
  readonly baseUri: string;
  /** The transactional store, for services built over the platform (archives). */
  readonly store: Store;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly acls: AclService;
  readonly orgs: OrgService;
  readonly projects: ProjectService;
  readonly resources: ResourceService;
  readonly files: FileService;
  /** Renders representations off the main thread, with bounded output. */
  readonly renderer: Renderer;
  /** The caller behind an Authorization header; rejects with AuthenticationError (401) for a bad token. */
  identify(authorization: string | undefined): Promise<Identity>;
  /** Reads the auth file again (SIGHUP); when there is none or it cannot be used, a log line says so and nothing changes. */
  reloadAuthFile(): void;
  /** Throws AuthorizationError (403) unless `caller` (as `identify` named it) holds `permission` on `projectPath` (`org/project`). */
  authorize(caller: Identity, permission: string, projectPath: string): void;
  close(): Promise<void>;
}

const SILENT: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** Where the embedded (LMDB) platform store of a data directory lives. */
export const embeddedStoreDirectory = (dataDir: string) => path.join(dataDir, 'platform', 'store');
/** Where file contents live when `--blob-dir` is not set. */
export const defaultFileContentsDirectory = (dataDir: string) => path.join(dataDir, 'platform', 'files');

export async function openPlatform(options: PlatformOptions): Promise<Platform> {
  const clock = options.clock ?? Date.now;
  const logger = options.logger ?? SILENT;
  const baseUri = (options.baseUri ?? DEFAULT_BASE_URI).replace(/\/+$/, '');
  const literatureRef = parseProjectRef(options.literatureProject.replace(/^\//, ''));
  if (literatureRef === null) throw new Error(`literature project must be 'org/project', got '${options.literatureProject}'`);

  const authenticator = Authenticator.load(options.authFile, logger);

  const storeSetting = options.platformStore ?? 'lmdb';
  const storeDir = embeddedStoreDirectory(options.dataDir);
  const store = await openPlatformStore(storeSetting, storeDir, logger);
  // Which store serves /v1, said at every start: a database by its URL without the password (the log is read by many).
  logger.info(`platform store: ${storeSetting === 'lmdb' ? `LMDB at ${storeDir}` : `PostgreSQL at ${printableStoreUrl(storeSetting)}`}`);
  // A data directory that served from its own store before: what it holds is not served now, and the start says so.
  if (storeSetting !== 'lmdb' && existsSync(path.join(storeDir, 'data.mdb'))) {
    logger.warn(
      `the data directory holds an LMDB platform store (${storeDir}) that this server does not read, as --platform-store is PostgreSQL: ` +
        'its organizations, projects, resources and files are not served from here (nothing copies them across; docs/DEPLOY.md)',
    );
  }
  const blobRoot = options.blobDir || defaultFileContentsDirectory(options.dataDir);
  const blobs = new BlobStore(blobRoot);
  const opened: Audit = { createdAt: clock(), createdBy: OPERATOR.subject, updatedAt: clock(), updatedBy: OPERATOR.subject };
  // A start refused past this point (a blob directory it cannot use, a literature label naming a user's
  // project) closes the store again: a caller that goes on (a test, an embedding) keeps no open database.
  let acls: AclService, orgs: OrgService, projects: ProjectService, literature: LiteratureResources, revisions: RevisionStore, blobClaim: Claim;
  try {
    blobClaim = await claimFileContentsDirectory(store, blobs, blobRoot, options.blobDir);
    acls = await AclService.open(store, authenticator.fileAcls, options.authFile !== null, clock);
    orgs = new OrgService(store, acls, clock);
    projects = await ProjectService.open(store, orgs, acls, baseUri, literatureRef, opened, clock);
    logLiteratureBase(logger, `${literatureRef.org}/${literatureRef.project}`, projects.literatureBase, baseUri);
    await orgs.ensureLiterature(literatureRef.org, OPERATOR);
    literature = new LiteratureResources(options.literature, (await projects.get(literatureRef))!, opened);
    revisions = await RevisionStore.open(store, clock);
  } catch (error) {
    await store.close();
    throw error;
  }
  const inert = acls.inertGrants();
  if (inert.length > 0) {
    logger.warn(`${inert.length} stored ACL grant(s) name users or groups no token can carry (control, bidirectional or invisible characters, or white space at an end), so they grant nothing; remove them: ${inert.slice(0, 10).join('; ')}${inert.length > 10 ? '; …' : ''}`);
  }
  const renderer = createRenderer({
    threads: options.renderThreads ?? Math.max(1, Math.min(2, availableParallelism() - 1)),
    maxBytes: options.maxRenderedBytes ?? DEFAULT_MAX_RENDERED_BYTES,
  });
  const resources = new ResourceService(revisions, projects, acls, literature, renderer);
  const files = new FileService(revisions, projects, resources, acls, blobs, options.maxFileBytes, logger);
  let stopBlobCollection: () => void;
  try {
    stopBlobCollection = await startBlobCollection(blobs, files, blobClaim, blobRoot, logger);
  } catch (error) {
    // As for a start refused above: a caller that goes on keeps no open database nor render threads.
    await renderer.close();
    await store.close();
    throw error;
  }

  return {
    baseUri,
    store,
    clock,
    logger,
    acls,
    orgs,
    projects,
    resources,
    files,
    renderer,
    identify: (authorization) => authenticator.identify(authorization),
    reloadAuthFile: () => authenticator.reload(acls),
    authorize(caller, permission, projectPath) {
      const ref = parseProjectRef(projectPath.replace(/^\//, ''));
      if (ref === null || !isPermission(permission)) throw new Error(`authorize: bad permission '${permission}' or project '${projectPath}'`);
      acls.require(caller, permission, projectAddress(ref));
    },
    async close() {
      stopBlobCollection();
      await renderer.close();
      await store.close();
    },
  };
}

/**
 * Said at every start, as nothing else names the ids' base or says, after --public-url changed, that ids
 * keep the base fixed at the first start while links (`_self`, `Location`) follow the new URL.
 */
function logLiteratureBase(logger: Logger, project: string, base: string, publicUrl: string): void {
  if (base.startsWith(`${publicUrl}/`)) {
    logger.info(`literature project ${project}: article ids under ${base}, links under ${publicUrl}`);
    return;
  }
  logger.warn(
    `literature project ${project}: article ids stay under ${base}, fixed at its first start, while links follow --public-url ${publicUrl} ` +
      '(ids stored in archives and resources stay valid; docs/DEPLOY.md says how to start over)',
  );
}
