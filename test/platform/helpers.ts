/** Fixtures shared by the platform and archive tests: temp data dirs, auth files, an in-memory literature, multipart bodies. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import type { ArticleMetadata } from '../../src/corpus/model.js';
import { defaultOf } from '../../src/config.js';
import { PLATFORM_MAX_PARAM_LENGTH, platformApi, type PlatformApiOptions } from '../../src/http/platform/index.js';
import type { ArchiveService } from '../../src/archive/archives.js';
import type { Platform } from '../../src/platform/index.js';
import { openServices } from '../../src/services.js';
import type { HeldArticles, LiteratureSource } from '../../src/platform/literature.js';
import { schemaUrl } from '../postgres/cluster.js';
import { buildValidator } from '../../src/http/validation.js';
import { testPostgresUrl } from '../postgres/project.js';

export const BASE = 'http://platform.test';

export class MemoryLiterature implements LiteratureSource {
  private readonly byId: Map<string, ArticleMetadata>;

  constructor(articles: ArticleMetadata[]) {
    this.byId = new Map(articles.map((a) => [a.article_id, a]));
  }

  getArticle(articleId: string): ArticleMetadata | null {
    return this.byId.get(articleId) ?? null;
  }

  listArticleIds(offset: number, limit: number): string[] {
    return [...this.byId.keys()].slice(offset, offset + limit);
  }

  articleCount(): number {
    return this.byId.size;
  }

  /** Nothing to hold: the articles never change. */
  hold(): HeldArticles {
    return { getArticle: (articleId) => this.getArticle(articleId), release: () => {} };
  }
}

export function article(id: string, overrides: Partial<ArticleMetadata> = {}): ArticleMetadata {
  return {
    article_title: `Title of ${id}`,
    article_authors: ['Ada Lovelace', 'Alan Turing'],
    article_id: id,
    article_doi: `10.5555/${id}`,
    pubmed_id: null,
    date: '2020-05-17',
    article_type: 'research-article',
    journal_issn: '1050-9631',
    journal_name: 'Hippocampus',
    cited_by: 12,
    impact_factor: 4.1,
    abstract: `Abstract of ${id}.`,
    ...overrides,
  };
}

export const TOKENS = {
  alice: 'alice-secret-token',
  bob: 'bob-secret-token',
  carol: 'carol-secret-token',
};

/** alice may do everything; bob and carol are plain users (bob in group "team"); anonymous may read. */
export const DEFAULT_AUTH = {
  tokens: {
    [TOKENS.alice]: { realm: 'local', subject: 'alice', groups: [] },
    [TOKENS.bob]: { realm: 'local', subject: 'bob', groups: ['team'] },
    [TOKENS.carol]: { realm: 'local', subject: 'carol' },
  },
  acls: { '/': { anonymous: ['resources/read'], 'local/alice': ['*'] } },
};

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}

export interface TestServer {
  app: FastifyInstance;
  platform: Platform;
  archives: ArchiveService;
  dataDir: string;
  /** Closes app and platform; keeps the data dir (for restart tests). */
  stop(): Promise<void>;
  /** Stops and deletes the data dir. */
  close(): Promise<void>;
}

/** The platform API's options for these services, with the server's default for every setting (src/config.ts). */
export function serverApiOptions(services: Pick<PlatformApiOptions, 'platform' | 'archives'>): PlatformApiOptions {
  return { ...services, maxArchiveDownloadsPerClient: defaultOf('maxArchiveDownloadsPerClient') };
}

export interface TestServerOptions {
  /** Auth file content; null for no auth file. Default: DEFAULT_AUTH. */
  auth?: object | null;
  dataDir?: string;
  ttlMs?: number;
  clock?: () => number;
  articles?: ArticleMetadata[];
  /** The literature served, in place of `articles` (a live index, say). */
  literature?: LiteratureSource;
  baseUri?: string;
  maxFileBytes?: number;
  maxArchivesPerCaller?: number;
  maxArchiveStoreBytes?: number;
  renderThreads?: number;
  maxRenderedBytes?: number;
  archiveRenderBounds?: { maxSourceBytes: number; maxRenderedBytes: number };
  logger?: { info(m: string): void; warn(m: string): void; error(d: object, m: string): void };
  /** Servers given one name share one PostgreSQL store (replicas); default: the data dir's own. */
  sharedStore?: string;
  blobDir?: string;
}

/**
 * In the `postgresql` test project (its global setup provides the cluster's URL), every test
 * server gets a schema of its own in the run's cluster, named after its data dir, so a restart
 * on the same data dir finds its store again; otherwise the embedded LMDB store.
 */
async function testPlatformStore(dataDir: string, sharedStore: string | undefined): Promise<string | undefined> {
  const cluster = testPostgresUrl();
  return cluster ? schemaUrl(cluster, sharedStore ?? dataDir) : undefined;
}

export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'platform-test-')));
  const auth = options.auth === undefined ? DEFAULT_AUTH : options.auth;
  let authFile: string | null = null;
  if (auth !== null) {
    authFile = path.join(dataDir, 'auth.json');
    await writeFile(authFile, JSON.stringify(auth));
  }
  const platformStore = await testPlatformStore(dataDir, options.sharedStore);
  const services = await openServices({
    dataDir,
    ...(platformStore && { platformStore }),
    ...(options.blobDir && { blobDir: options.blobDir }),
    authFile,
    archiveTtlMs: options.ttlMs ?? 5 * 3_600_000,
    literatureProject: 'literature/articles',
    literature: options.literature ?? new MemoryLiterature(options.articles ?? [article('demo-000'), article('demo-001')]),
    baseUri: options.baseUri ?? BASE,
    ...(options.maxFileBytes !== undefined && { maxFileBytes: options.maxFileBytes }),
    ...(options.maxArchivesPerCaller !== undefined && { maxArchivesPerCaller: options.maxArchivesPerCaller }),
    ...(options.maxArchiveStoreBytes !== undefined && { maxArchiveStoreBytes: options.maxArchiveStoreBytes }),
    ...(options.renderThreads !== undefined && { renderThreads: options.renderThreads }),
    ...(options.maxRenderedBytes !== undefined && { maxRenderedBytes: options.maxRenderedBytes }),
    ...(options.archiveRenderBounds && { archiveRenderBounds: options.archiveRenderBounds }),
    ...(options.clock && { clock: options.clock }),
    ...(options.logger && { logger: options.logger }),
  });
  // Validated as the server validates (src/app.ts).
  const app = Fastify({ logger: false, routerOptions: { maxParamLength: PLATFORM_MAX_PARAM_LENGTH }, schemaController: { compilersFactory: { buildValidator } } });
  const { platform, archives } = services;
  await app.register(platformApi, serverApiOptions({ platform, archives }));
  await app.ready();
  const stop = async () => {
    await app.close();
    await services.close();
  };
  return { app, platform, archives, dataDir, stop, close: async () => (await stop(), await rm(dataDir, { recursive: true, force: true })) };
}

/** A multipart/form-data body with one part (named `file` unless told otherwise). */
export async function multipart(
  filename: string,
  content: Buffer | string,
  mediaType = 'application/octet-stream',
  field = 'file',
): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  form.append(field, new Blob([content], { type: mediaType }), filename);
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type')! } };
}

/** Creates org/project as alice. */
export async function createProject(app: FastifyInstance, org: string, project: string, body: object = {}): Promise<void> {
  const orgResponse = await app.inject({ method: 'PUT', url: `/v1/orgs/${org}`, headers: bearer(TOKENS.alice), payload: {} });
  if (orgResponse.statusCode !== 201 && orgResponse.statusCode !== 409) throw new Error(`org: ${orgResponse.body}`);
  const response = await app.inject({ method: 'PUT', url: `/v1/projects/${org}/${project}`, headers: bearer(TOKENS.alice), payload: body });
  if (response.statusCode !== 201) throw new Error(`project: ${response.body}`);
}

/** An identity provider's ES256 signing key and its public key as a JWKS entry (`kid` lab-1), for OIDC tests. */
export async function identityProviderKeys(): Promise<{ signing: CryptoKey; publicJwk: JWK }> {
  const pair = await generateKeyPair('ES256');
  return { signing: pair.privateKey, publicJwk: { ...(await exportJWK(pair.publicKey)), kid: 'lab-1', alg: 'ES256', use: 'sig' } };
}

/** A server holding the project org/proj, started before the calling file's tests and closed after them. */
export function serverWithProject(): () => TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startServer();
    await createProject(server.app, 'org', 'proj');
  });
  afterAll(() => server?.close());
  return () => server!;
}

/**
 * Temporary directories and servers a file's tests make, removed and stopped after each test: `scratch(prefix)` makes
 * a directory, `serve(options)` starts a server, `stop(server)` stops one before the test ends (it is not stopped again).
 */
export function perTestScratch() {
  const made: string[] = [];
  const running = new Set<TestServer>();
  afterEach(async () => {
    for (const server of running) await server.stop();
    running.clear();
    for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  return {
    scratch: async (prefix: string) => {
      const dir = await mkdtemp(path.join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    serve: async (options: TestServerOptions) => {
      const server = await startServer(options);
      running.add(server);
      return server;
    },
    stop: async (server: TestServer) => {
      running.delete(server);
      await server.stop();
    },
  };
}
