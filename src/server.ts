/** Opens the index and services named by the configuration and serves them until SIGTERM/SIGINT. */
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { Searcher } from './search/searcher.js';
import { Library } from './corpus/library.js';

export async function startServer(config: Config): Promise<void> {
  const started = Date.now();
  const searcher = await Searcher.open(config.index!, {
    threads: config.searchThreads,
    k1: config.bm25K1,
    b: config.bm25B,
    titleWeight: config.titleWeight,
    filterCacheSize: config.filterCacheSize,
  });
  const library = new Library(searcher);
  const app = await buildApp(
    { config, searcher, library, components: () => ({ generator: 'extractive', reranker: null }) },
    { logger: { level: config.logLevel } },
  );
  app.log.info(
    { index: config.index, articles: searcher.snapshot.liveArticleCount, paragraphs: searcher.snapshot.paragraphCount, loadMs: Date.now() - started },
    'index loaded',
  );
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining in-flight requests');
    await app.close();
    await searcher.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ host: config.host, port: config.port });
}
