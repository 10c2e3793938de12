/**
 * Opens the index, models and services named by the configuration and serves them until SIGTERM or SIGINT (or SIGHUP
 * from the terminal it was started in; to a server started without one, SIGHUP reads the auth file again).
 */
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { searcherOptionsOf, type Config } from './config.js';
import { buildApp } from './app.js';
import type { ArchiveService } from './archive/archives.js';
import { cutRemainingConnections } from './http/draining.js';
import { ServiceUnavailableError } from './http/errors.js';
import { requestsEnded } from './http/abandoned-requests.js';
import { STOPPING_SIGNALS } from './stopping-signals.js';
import { LiveIndex } from './live/live-index.js';
import { watchIndex } from './live/index-watcher.js';
import { QaPipeline } from './qa/pipeline.js';
import { createGenerator } from './llm/index.js';
import { ModelUnavailableError, type Generator } from './llm/types.js';
import { createReranker, type Reranker } from './rerank/index.js';
import { openServices } from './services.js';
import { defaultFileContentsDirectory, type Platform } from './platform/index.js';
import { connectionsInForce } from './http/connection-limits.js';
import { demoCorpusPath } from './demo-corpus.js';

/** How long the exit waits for the lines of requests cut at the drain's end (each ends within milliseconds). */
const ENDS_AFTER_CUT_MS = 1_000;
/** How long the exit waits for the log's last lines to be written (a reader that stopped reading must not hold it). */
const EXIT_FLUSH_BOUND_MS = 2_000;

/** The settings in force once the port is taken: its port (not 0) and the public URL (not null), which /settings shows too. */
type ServingConfig = Config & { publicUrl: string };

/** What the server serves, opened at its start and closed by its shutdown. */
interface Components {
  index: LiveIndex;
  /** Stops the reloads of the index on a new generation (nothing to stop without --index-watch). */
  stopWatching: () => void;
  generator: Generator | null;
  /** Why there is no generator: the QA endpoints answer 503 with it. */
  generatorError: Error | null;
  reranker: Reranker | null;
  qa: QaPipeline;
  platform: Platform;
  archives: ArchiveService;
  closeServices: () => Promise<void>;
}

/** What clients use to reach the server, for ids, `_self` links and redirects. */
function publicUrlOf(config: Config): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

/**
 * The port to listen on. Port 0 asks the system for a free one; ids and links are made before the server
 * listens (the platform is opened with its public URL), and must not name port 0. So the free port is taken
 * at once, held by a listener that refuses every connection until `release`, just before the server
 * listens on it, so that no other process takes it meanwhile (loading the index takes seconds).
 */
async function reservePort(host: string, port: number): Promise<{ port: number; release: () => Promise<void> }> {
  if (port !== 0) return { port, release: async () => {} };
  const holder = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    holder.once('error', reject);
    holder.listen({ host, port: 0 }, resolve);
  });
  return {
    port: (holder.address() as { port: number }).port,
    release: () => new Promise<void>((resolve) => holder.close(() => resolve())),
  };
}

/** Whether the server was started in a terminal (`npm start` at a prompt), whose closing sends SIGHUP. */
function startedInTerminal(): boolean {
  return process.stdin.isTTY === true || process.stdout.isTTY === true;
}

/** Node's message names the system call; the operator needs the settings to change. */
function listenError(config: Config, error: unknown): Error {
  return new Error(`cannot listen on ${config.host} port ${config.port} (--host / HOST, --port / PORT): ${(error as Error).message}`);
}

/** Opens the index, says what it holds, and watches it for new generations when --index-watch asks. */
async function openIndex(config: Config, logger: Logger): Promise<{ index: LiveIndex; stopWatching: () => void }> {
  const cores = availableParallelism();
  if (config.searchThreads > 2 * cores) {
    // 256 threads on 2 cores took 2.4 GB and 18 s to start, with no word (an exploratory round's finding).
    logger.warn(`--search-threads ${config.searchThreads} on ${cores} cores: each search thread holds about 9 MiB, and threads beyond the cores only wait their turn`);
  }
  const started = Date.now();
  const index = await LiveIndex.open(config.index, searcherOptionsOf(config), logger);
  const { articles, paragraphs } = index.current.searcher.statistics();
  logger.info(
    {
      index: config.index,
      generation: index.current.generation,
      articles,
      paragraphs,
      loadMs: Date.now() - started,
    },
    'index loaded',
  );
  const stopWatching = config.indexWatch ? watchIndex(index, config.indexPollInterval, logger) : () => {};
  return { index, stopWatching };
}

/**
 * Loads the language model and the reranker. A model that fails to load does not stop the server: retrieval
 * keeps working and the QA endpoints answer 503 with the reason, which names the setting to fix.
 */
async function loadModels(config: Config, logger: Logger): Promise<Pick<Components, 'generator' | 'generatorError' | 'reranker'>> {
  let generator: Generator | null = null;
  let generatorError: Error | null = null;
  try {
    generator = await createGenerator(config, logger);
  } catch (error) {
    generatorError = error as Error;
    // A model that cannot be used is a setting to fix, said in full by its reason: its stack, and its cause's message
    // that the log's error form appends (the reason already quotes it), were noise.
    const why = error instanceof ModelUnavailableError ? { reason: error.message } : { err: error };
    logger.error(why, 'language model not available: QA endpoints will answer 503');
  }
  const reranker = await createReranker(config);
  if (reranker) logger.info({ reranker: reranker.description }, 'reranker loaded');
  return { generator, generatorError, reranker };
}

/** Opens the index, the models, the QA pipeline over them, and the stored services, in that order. */
async function openComponents(config: ServingConfig, logger: Logger): Promise<Components> {
  const { index, stopWatching } = await openIndex(config, logger);
  const models = await loadModels(config, logger);
  const { generator, generatorError, reranker } = models;
  const qa = new QaPipeline(
    index,
    () => {
      if (generator) return generator;
      throw new ModelUnavailableError(generatorError?.message ?? 'no language model');
    },
    reranker,
    { maxParagraphLength: config.maxParagraphLength },
  );
  const { platform, archives, close: closeServices } = await openServices({
    dataDir: config.data,
    platformStore: config.platformStore,
    blobDir: config.blobDir,
    authFile: config.authFile,
    archiveTtlMs: config.archiveTtl,
    maxArchivesPerCaller: config.maxArchivesPerCaller,
    maxArchiveStoreBytes: config.maxArchiveStoreBytes,
    literatureProject: config.literatureProject,
    literature: index,
    baseUri: config.publicUrl,
    maxFileBytes: config.maxUploadBytes,
    logger: {
      info: (message) => logger.info(message),
      warn: (message) => logger.warn(message),
      error: (details, message) => logger.error(details, message),
    },
  });
  return { index, stopWatching, ...models, qa, platform, archives, closeServices };
}

/** For /settings: the components in force and the settings left to their defaults, resolved. */
function componentsInForce(config: Config, { generator, generatorError, reranker }: Components): Record<string, unknown> {
  return {
    // Settings left to their defaults, as in force: null, or a path relative to where the server was started
    // (the demo corpus's), had told nothing of the folder or bound used.
    blobDir: path.resolve(config.blobDir ?? defaultFileContentsDirectory(config.data)),
    maxConnections: connectionsInForce(config.maxConnections),
    demoCorpus: path.resolve(demoCorpusPath(config.demoCorpus)),
    // The context window the model takes (never beyond its training context), in place of the one asked.
    ...(generator?.settingsInForce ?? (generatorError instanceof ModelUnavailableError ? generatorError.settingsInForce : undefined)),
    generator: generator?.kind ?? 'unavailable',
    generator_description: generator?.description ?? generatorError?.message ?? null,
    reranker: reranker?.description ?? null,
  };
}

/** pino's asynchronous stream to stdout, which the exit waits for. */
type LogOutput = ReturnType<typeof pino.destination>;

/**
 * The shutdown on a stopping signal: drains the requests under way (for --shutdown-timeout at most), closes the
 * components, gives the data directory back (`releaseData`), says 'stopped' and ends the process once its log is
 * written. A second signal cuts the connections still open.
 */
function makeShutdown(
  app: FastifyInstance,
  components: Components,
  config: Config,
  log: { logger: Logger; logOutput: LogOutput },
  releaseData: () => Promise<void>,
): (signal: string) => Promise<void> {
  const { logger, logOutput } = log;
  const { index, stopWatching, generator, reranker, closeServices } = components;
  let closing = false;
  return async (signal) => {
    if (closing) {
      // A second signal (Ctrl-C again) does not wait for the drain, as a second one does not wait for an ingestion.
      logger.warn({ signal }, 'second signal: closing the connections still open');
      cutRemainingConnections(app);
      return;
    }
    closing = true;
    logger.info({ signal, drainMs: config.shutdownTimeout }, 'shutting down: draining in-flight requests');
    // Questions and rerankings still waiting for their model would wait only to be cut at the drain's end: refused now.
    const notStarted = new ServiceUnavailableError('server shutting down: the question had not started; retry shortly (another replica, or this one once restarted)');
    generator?.refuseWaiting?.(notStarted);
    reranker?.refuseWaiting?.(notStarted);
    // close() stops accepting and waits for open connections. Keep-alive connections that finish a
    // response after it began would linger until their idle timeout: close them as they go idle, and
    // cut whatever is still running when the drain time is up.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 200);
    const deadline = setTimeout(() => {
      logger.warn('drain time up: closing the connections still open');
      cutRemainingConnections(app);
    }, config.shutdownTimeout);
    stopWatching();
    await app.close();
    clearInterval(sweep);
    clearTimeout(deadline);
    // Requests cut a moment ago may end after the server has closed: their lines are written before the process exits.
    await requestsEnded(app, ENDS_AFTER_CUT_MS);
    await Promise.all([closeServices(), index.close(), generator?.close(), reranker?.close()]);
    await releaseData();
    // The last line, which says the server is gone.
    logger.info({ signal }, 'stopped');
    // The stream writes asynchronously, one write at a time: the exit waits until all it holds is written ('drain'),
    // since Node's exit-time flush would write what is left beside a write under way, out of order (pino's flush()
    // does not wait for that write). The empty write makes sure a 'drain' comes, even when a quieter log level wrote
    // nothing. A reader that stopped reading does not hold the exit past the bound.
    setTimeout(() => process.exit(0), EXIT_FLUSH_BOUND_MS).unref();
    logOutput.once('drain', () => process.exit(0));
    logOutput.once('error', () => process.exit(0));
    logOutput.write('');
  };
}

/**
 * Runs `shutdown` on the stopping signals. SIGHUP from a terminal that closed on `npm start` drains and stops (Node's
 * default would end the process where it is, without a drain). To a server started without a terminal (a service manager's,
 * `nohup`), it is the daemons' request to read the configuration again: the auth file, so tokens and ACLs change
 * without a restart.
 */
function installSignalHandlers(shutdown: (signal: string) => Promise<void>, platform: Platform, logger: Logger): void {
  const hangupStops = startedInTerminal();
  for (const signal of STOPPING_SIGNALS) {
    if (signal !== 'SIGHUP' || hangupStops) process.on(signal, () => void shutdown(signal));
  }
  if (!hangupStops) {
    process.on('SIGHUP', () => {
      logger.info({ signal: 'SIGHUP' }, 'reading the auth file again');
      platform.reloadAuthFile();
    });
  }
}

/** `releaseData`: lockDataOf's (data-lock.ts), given back at shutdown. */
export async function startServer(configured: Config, releaseData: () => Promise<void>): Promise<void> {
  const reserved = await reservePort(configured.host, configured.port).catch((error) => {
    throw listenError(configured, error);
  });
  const bound = { ...configured, port: reserved.port };
  const config: ServingConfig = { ...bound, publicUrl: publicUrlOf(bound) };
  // pino's own stream to stdout, asynchronous as pino's default is; the exit waits for it to be written out.
  const logOutput = pino.destination({ dest: 1, sync: false });
  const logger = pino({ level: config.logLevel }, logOutput);
  const components = await openComponents(config, logger);
  const { index, qa, platform, archives } = components;
  const app = await buildApp({ config, index, qa, platform, archives, components: () => componentsInForce(config, components) }, { logger });
  installSignalHandlers(makeShutdown(app, components, config, { logger, logOutput }, releaseData), platform, logger);
  try {
    await reserved.release();
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    throw listenError(config, error);
  }
}
