/** What other modules take out of a loaded configuration: settings in force that derive from others, /settings, the engine's options. */
import type { SearcherOptions } from '../search/searcher.js';
import { SERVED_INLINE_POSTINGS } from '../search/defaults.js';
import { TABLE, takes, type Config } from './settings.js';

/** The --max-in-flight-per-client share in force: unset, half of --max-in-flight (at least one slot; none without that limit). */
export function inFlightPerClient(config: Pick<Config, 'maxInFlight' | 'maxInFlightPerClient'>): number {
  if (config.maxInFlightPerClient !== null) return config.maxInFlightPerClient;
  return config.maxInFlight > 0 ? Math.max(1, Math.floor(config.maxInFlight / 2)) : 0;
}

/** The effective configuration for /settings: secrets masked, nothing else hidden. */
export function publicSettings(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(TABLE)) {
    if (!takes(setting, 'serve')) continue;
    const value = (config as Record<string, unknown>)[key];
    out[key] = setting.printable === undefined ? value : setting.printable(value);
  }
  return out;
}

/** The engine's settings out of the configuration (what Searcher.open takes). */
export function searcherOptionsOf(config: Config): SearcherOptions {
  return {
    threads: config.searchThreads,
    k1: config.bm25K1,
    b: config.bm25B,
    titleWeight: config.titleWeight,
    filterCacheSize: config.filterCacheSize,
    inlinePostings: SERVED_INLINE_POSTINGS,
    inlineWhenAlone: true,
  };
}
