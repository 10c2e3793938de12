/** An app over a small index the tests write themselves. */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, searcherOptionsOf } from '../../src/config.js';
import { LiveIndex } from '../../src/live/live-index.js';
import type { Searcher } from '../../src/search/searcher.js';
import type { ArticleInput } from '../../src/corpus/model.js';
import type { StoredCompression } from '../../src/search/stored/format.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { QaPipeline } from '../../src/qa/pipeline.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import type { Generator } from '../../src/llm/types.js';
import type { Reranker } from '../../src/rerank/types.js';
import type { Platform } from '../../src/platform/index.js';
import type { ArchiveService } from '../../src/archive/archives.js';
import { openServices, type Services } from '../../src/services.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

export const FIXTURE_ARTICLES: ArticleInput[] = [
  article('hippo-1', ['Place cells in hippocampal CA1 fire at specific locations.', 'Pyramidal cells of CA1 receive input from CA3.'], {
    title: 'Place cells of the hippocampus',
    authors: ['José Núñez', 'Ada Lovelace'],
    date: '2010-05-01',
    journal_issn: '1050-9631',
    journal_name: 'Hippocampus',
    cited_by: 120,
    impact_factor: 3.5,
    paragraphs: [
      { section: 'Abstract', text: 'We recorded place cells in CA1.' },
      { section: 'Results', text: 'Place cells in hippocampal CA1 fire at specific locations.' },
      { section: 'Results', text: 'Pyramidal cells of CA1 receive input from CA3.' },
    ],
  }),
  article('dopa-2', ['Dopamine neurons in the substantia nigra signal reward prediction errors.'], {
    title: 'Dopamine and reward',
    authors: ['Ada Lovelace'],
    article_type: 'review-article',
    date: '2018-03-15',
    journal_issn: '0896-6273',
    journal_name: 'Neuron',
  }),
  article('grid-3', ['Grid cells in the medial entorhinal cortex tile space.', 'Theta oscillations pace grid cells.'], {
    title: 'Grid cells',
    authors: ['Søren Ødegaard'],
    date: '2024-11-30',
    journal_issn: '0896-6273',
    journal_name: 'Neuron',
  }),
  article('undated-4', ['Serotonin 5-HT2A receptors in prefrontal pyramidal cells.'], { title: 'Serotonin', date: null, article_type: 'editorial' }),
];

export interface FixtureModels {
  /** Default: the extractive generator. A function may throw to simulate a model that failed to load. */
  generator?: () => Generator;
  reranker?: Reranker | null;
}

export interface FixtureOptions {
  /**
   * Serve the /v1 platform too, with this auth file content (null = no auth file)
   * guarding both the platform and the literature routes. Absent = literature API only.
   */
  auth?: object | null;
  /** Extra settings as command-line flags, e.g. ['--rate-limit', '5']. */
  flags?: string[];
  /** A pino logger for the app (default: silent). */
  logger?: FastifyBaseLogger;
  /** Cut the index into segments of about this size (default: one segment). */
  maxSegmentBytes?: number;
  /** Layout of the stored-fields files (default plain). */
  storedCompression?: StoredCompression;
}

export interface Fixture {
  app: FastifyInstance;
  /** The generation served when the fixture was built. */
  searcher: Searcher;
  index: LiveIndex;
  indexDir: string;
  platform: Platform | null;
  archives: ArchiveService | null;
  /** Data directory of the platform store (inside the fixture's temp dir). */
  dataDir: string;
  close: () => Promise<void>;
}

export async function fixtureApp(articles = FIXTURE_ARTICLES, models: FixtureModels = {}, options: FixtureOptions = {}): Promise<Fixture> {
  const { dir, cleanup } = await tempDir();
  const indexDir = path.join(dir, 'index');
  const dataDir = path.join(dir, 'data');
  await writeIndex(indexDir, articles, options.maxSegmentBytes, options.storedCompression);
  const config = loadConfig(['--index', indexDir, '--data', dataDir, '--search-threads', '0', '--rate-limit', '0', ...(options.flags ?? [])], {});
  const index = await LiveIndex.open(indexDir, searcherOptionsOf(config));
  const extractive = new ExtractiveGenerator();
  const qa = new QaPipeline(index, models.generator ?? (() => extractive), models.reranker ?? null, { maxParagraphLength: config.maxParagraphLength });
  let services: Services | null = null;
  if (options.auth !== undefined) {
    let authFile: string | null = null;
    if (options.auth !== null) {
      authFile = path.join(dir, 'auth.json');
      await writeFile(authFile, JSON.stringify(options.auth));
    }
    services = await openServices({
      dataDir,
      platformStore: config.platformStore,
      authFile,
      archiveTtlMs: config.archiveTtl,
      maxArchivesPerCaller: config.maxArchivesPerCaller,
      maxArchiveStoreBytes: config.maxArchiveStoreBytes,
      literatureProject: config.literatureProject,
      literature: index,
      baseUri: 'http://litserve.test',
    });
  }
  const platform = services?.platform ?? null;
  const archives = services?.archives ?? null;
  const app = await buildApp(
    { config, index, qa, components: () => ({ generator: 'extractive' }), ...(services && { platform: services.platform, archives: services.archives }) },
    { ...(options.logger && { logger: options.logger }) },
  );
  return {
    app,
    searcher: index.current.searcher,
    index,
    indexDir,
    platform,
    archives,
    dataDir,
    close: async () => {
      await app.close();
      await services?.close();
      await index.close();
      await cleanup();
    },
  };
}

/** The /settings answer of a server started with `flags` (the server is closed again). */
export async function settingsWith(flags: string[]): Promise<Record<string, unknown>> {
  const fixture = await fixtureApp(undefined, {}, { auth: null, flags });
  try {
    return (await fixture.app.inject({ url: '/settings' })).json();
  } finally {
    await fixture.close();
  }
}
