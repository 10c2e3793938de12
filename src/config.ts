/**
 * Every setting of the server in one place: its command-line flag, its
 * environment variable, its default, its bounds and what it does.
 *
 * Precedence: command-line flag > environment variable > default.
 * Flags are the kebab-case of the key (`llmModel` -> `--llm-model`), environment
 * variables its upper snake case (`LLM_MODEL`). `npm start -- --help` lists them.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { SearcherOptions } from './search/searcher.js';

export class ConfigError extends Error {}

interface Setting<T> {
  default: T;
  parse: (raw: string, name: string) => T;
  doc: string;
  /** Masked in /settings and in logs. */
  secret?: boolean;
  /** Environment variable, when the default name (upper snake case of the key) would be too generic. */
  env?: string;
  /** How --help shows the default, when the stored form is not what a user types. */
  shownDefault?: string;
}

function integer(min: number, max: number) {
  return (raw: string, name: string): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
    }
    return value;
  };
}

function decimal(min: number, max: number) {
  return (raw: string, name: string): number => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a number between ${min} and ${max}, got "${raw}"`);
    }
    return value;
  };
}

function text(raw: string): string {
  return raw;
}

function optionalText(raw: string): string | null {
  return raw === '' ? null : raw;
}

function boolean(raw: string, name: string): boolean {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(...values: T[]) {
  return (raw: string, name: string): T => {
    if ((values as string[]).includes(raw)) return raw as T;
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  };
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses durations such as `5h`, `30m`, `90s`, `1h30m` or a bare number of seconds into milliseconds. */
export function parseDuration(raw: string, name = 'duration'): number {
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== trimmed) {
    throw new ConfigError(`${name} must be a duration such as 5h, 30m or 90s, got "${raw}"`);
  }
  const millis = parts.reduce((sum, p) => sum + Number(p[1]) * DURATION_UNITS[p[2]!]!, 0);
  if (millis <= 0) throw new ConfigError(`${name} must be positive, got "${raw}"`);
  return millis;
}

function duration(raw: string, name: string): number {
  return parseDuration(raw, name);
}

const SETTINGS = {
  host: { default: '127.0.0.1', parse: text, doc: 'Address to listen on (0.0.0.0 for every interface).' },
  port: { default: 8080, parse: integer(0, 65535), doc: 'TCP port to listen on.' },
  data: { default: 'var', parse: text, env: 'DATA_DIR', doc: 'Data directory: platform store, file contents, archives and the default index.' },
  index: {
    default: null as string | null,
    parse: optionalText,
    env: 'INDEX_DIR',
    doc: 'Index directory to serve. Default: <data>/index, built from the demo corpus on first start.',
  },
  demoCorpus: { default: 'data/demo/articles.jsonl', parse: text, doc: 'Corpus ingested into the default index when it is absent.' },
  searchThreads: {
    default: availableParallelism(),
    parse: integer(0, 256),
    doc: 'Search worker threads; 0 searches on the main thread. Default: CPU count.',
  },
  bm25K1: { default: 0.6, parse: decimal(0, 10), doc: 'BM25 term-frequency saturation k1 (chosen on SciFact train: bench/results/bm25-tuning.md).' },
  bm25B: { default: 0.75, parse: decimal(0, 1), doc: 'BM25 length normalisation b.' },
  titleWeight: { default: 0.25, parse: decimal(0, 10), doc: 'Weight of the article-title field relative to paragraph text.' },
  filterCacheSize: { default: 512, parse: integer(0, 100_000), doc: 'Number of compiled filters (bitsets) kept in memory.' },
  maxQueryLength: { default: 10_000, parse: integer(1, 1_000_000), doc: 'Longest accepted question, in characters (413 above).' },
  logLevel: {
    default: 'info' as const,
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    doc: 'Log level.',
  },
  llmModel: { default: null as string | null, parse: optionalText, doc: 'GGUF file of the language model; unset uses the extractive generator.' },
  llmGpu: { default: false, parse: boolean, doc: 'Run the language model on the GPU.' },
  llmThreads: {
    default: Math.max(1, Math.floor(availableParallelism() / 2)),
    parse: integer(1, 256),
    doc: 'CPU threads of the language model. Default: half the cores (llama.cpp slows sharply when it competes for every core).',
  },
  llmContextSize: { default: 4096, parse: integer(256, 131_072), doc: 'Context window of the language model, in tokens.' },
  llmMaxTokens: { default: 512, parse: integer(16, 16_384), doc: 'Most tokens generated per answer.' },
  llmTemperature: { default: 0, parse: decimal(0, 2), doc: 'Sampling temperature (0 = greedy).' },
  llmQueueSize: { default: 8, parse: integer(1, 10_000), doc: 'Questions waiting for the model before 429.' },
  rerankerModel: { default: null as string | null, parse: optionalText, doc: 'Directory with model.onnx and tokenizer.json; unset disables reranking.' },
  rerankerThreads: { default: 1, parse: integer(1, 256), doc: 'Intra-op threads of the reranker.' },
  rerankerBatchSize: { default: 32, parse: integer(1, 1024), doc: 'Pairs scored per reranker batch.' },
  authFile: { default: null as string | null, parse: optionalText, doc: 'JSON file of bearer tokens and ACLs; unset = anonymous read-only.' },
  archiveTtl: { default: 5 * 3_600_000, parse: duration, shownDefault: '5h', doc: 'Lifetime of an archive (e.g. 5h, 30m).' },
  literatureProject: { default: 'literature/articles', parse: text, doc: 'Read-only project exposing the indexed articles as resources.' },
  publicUrl: {
    default: null as string | null,
    parse: optionalText,
    doc: 'URL clients reach the server at: prefix of resource ids, _self links and archive redirects. Default: http://<host>:<port>.',
  },
  maxUploadBytes: { default: 10 * 1024 ** 3, parse: integer(1, Number.MAX_SAFE_INTEGER), shownDefault: '10 GiB', doc: 'Largest file upload, in bytes (413 above).' },
  rateLimit: {
    default: 600,
    parse: integer(0, 1_000_000),
    doc: 'Requests per minute per caller (bearer token, else IP address) before 429; 0 disables the limit.',
  },
  shutdownTimeout: {
    default: 30_000,
    parse: duration,
    shownDefault: '30s',
    doc: 'On SIGTERM/SIGINT, how long in-flight requests (downloads included) may run before their connections are cut.',
  },
  maxInFlight: {
    default: 256,
    parse: integer(0, 1_000_000),
    doc: 'Requests served at once; further ones get 503 with Retry-After instead of queueing without bound. 0 = no limit.',
  },
  requestTimeout: {
    default: 300_000,
    parse: duration,
    shownDefault: '300s',
    doc: 'Longest a client may take to send a whole request (headers and body, uploads included) before 408; guards against slow clients holding sockets.',
  },
  cacheDir: {
    default: null as string | null,
    parse: optionalText,
    env: 'LITSERVE_CACHE_DIR',
    shownDefault: '$XDG_CACHE_HOME/litserve',
    doc: 'Single executable only: where it writes the native libraries it carries (first start; checked by hash on every start). Default: $XDG_CACHE_HOME/litserve, else ~/.cache/litserve.',
  },
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;
export type Config = { [K in keyof Settings]: Settings[K]['default'] } & { indexIsDefault: boolean };
export type SettingName = keyof Settings;

export function flagOf(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

export function envOf(key: string): string {
  return (SETTINGS as Record<string, Setting<unknown>>)[key]?.env ?? flagOf(key).replace(/-/g, '_').toUpperCase();
}

/** Builds the configuration from `--flag value` / `--flag=value` arguments and the environment. */
export function loadConfig(argv: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): Config {
  const fromFlags = parseFlags(argv);
  const config: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const flag = flagOf(key);
    const raw = fromFlags.get(flag) ?? env[envOf(key)];
    config[key] = raw === undefined ? setting.default : setting.parse(raw, `--${flag} / ${envOf(key)}`);
  }
  const resolved = config as Config;
  resolved.indexIsDefault = resolved.index === null;
  if (resolved.index === null) resolved.index = path.join(resolved.data, 'index');
  return resolved;
}

function parseFlags(argv: readonly string[]): Map<string, string> {
  const known = new Set(Object.keys(SETTINGS).map(flagOf));
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const match = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new ConfigError(`unexpected argument "${arg}"; see --help`);
    const name = match[1]!;
    if (!known.has(name)) throw new ConfigError(`unknown option --${name}; see --help`);
    let value = match[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        // A bare boolean flag (`--llm-gpu`) means true.
        if ((SETTINGS as Record<string, Setting<unknown>>)[camelOf(name)]!.parse === boolean) value = 'true';
        else throw new ConfigError(`option --${name} needs a value`);
      } else {
        value = next;
        i++;
      }
    }
    values.set(name, value);
  }
  return values;
}

function camelOf(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The effective configuration for /settings: secrets masked, nothing else hidden. */
export function publicSettings(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const value = (config as Record<string, unknown>)[key];
    out[key] = setting.secret && value !== null ? '**********' : value;
  }
  return out;
}

export function helpText(): string {
  const lines = ['Options (flag / environment variable, default):'];
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    lines.push(`  --${flagOf(key)} / ${envOf(key)}  (default: ${setting.shownDefault ?? JSON.stringify(setting.default)})`);
    lines.push(`      ${setting.doc}`);
  }
  return lines.join('\n');
}

/** The engine's settings out of the configuration (what Searcher.open takes). */
export function searcherOptionsOf(config: Config): SearcherOptions {
  return {
    threads: config.searchThreads,
    k1: config.bm25K1,
    b: config.bm25B,
    titleWeight: config.titleWeight,
    filterCacheSize: config.filterCacheSize,
  };
}
