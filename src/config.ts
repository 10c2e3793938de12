/**
 * Every setting of the server in one place: its command-line flag, its
 * environment variable, its default, its bounds and what it does.
 *
 * Precedence: command-line flag > environment variable > default.
 * Flags are the kebab-case of the key (`llmModel` -> `--llm-model`), environment
 * variables its upper snake case (`LLM_MODEL`); `--port` also has a one-letter alias, `-p`.
 * `npm start -- --help` lists them.
 */
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { alternatives } from './alternatives.js';
import type { SearcherOptions } from './search/searcher.js';
import { DEFAULT_MAX_SEGMENT_BYTES, DEFAULT_MERGE_FACTOR, SERVED_INLINE_POSTINGS } from './search/defaults.js';
import { parseProjectRef } from './platform/refs.js';
import { printableStoreUrl } from './platform/store/printable-url.js';
import { COMPRESSIONS, DEFAULT_STORED_COMPRESSION, type StoredCompression } from './search/stored/format.js';

export class ConfigError extends Error {}

/** The commands of src/main.ts; each setting says which of them take it. */
export const COMMANDS = ['serve', 'ingest', 'eval'] as const;
export type Command = (typeof COMMANDS)[number];

interface Setting<T> {
  default: T;
  parse: (raw: string, name: string) => T;
  /** What --help says; per command where the setting means something else to each. */
  doc: string | Partial<Record<Command, string>>;
  /** How /settings shows a value that holds a secret (a URL's password): the secret masked, the rest shown. */
  printable?(value: T): string;
  /** Environment variable, when the default name (upper snake case of the key) would be too generic. */
  env?: string;
  /** How --help shows the default, when the stored form is not what a user types; per command where it differs. */
  shownDefault?: string | Partial<Record<Command, string>>;
  /** Commands taking this setting; default: serve only. */
  commands?: readonly Command[];
  /** Takes several values (`--input a b c`, or the flag repeated); the default is then an array. */
  multiple?: boolean;
  /** What each value of a `multiple` setting is, in --help (default PATH). */
  valueName?: string;
  /**
   * The values are paths of this kind: a value of a many-valued flag that starts with a dash and names nothing is
   * taken for a mistyped option, as is one after a single-valued flag that names an option or nearly does.
   */
  paths?: 'file' | 'folder' | 'file or folder';
  /** Must be given for these commands (usage error otherwise). */
  requiredBy?: readonly Command[];
  /** One-letter alias (`-p 9000`), for the few settings typed by hand all the time. */
  short?: string;
}

/** A parser that knows its bounds, so --help can state them. */
function bounded<T>(range: string, parse: (raw: string, name: string) => T) {
  return Object.assign(parse, { range });
}

/**
 * Plain decimal notation only: Number() would read "" and "  " as 0 (an empty PORT a random port, an empty RATE_LIMIT
 * no limit) and accept 0x50, 1e1 and +1.5. No setting takes a number below 0, so no sign either.
 */
const INTEGER_TEXT = /^\d+$/;
const DECIMAL_TEXT = /^(\d+\.?\d*|\.\d+)$/;

function integer(min: number, max: number) {
  return bounded(`${min} to ${max}`, (raw: string, name: string): number => {
    const value = INTEGER_TEXT.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
    }
    return value;
  });
}

function decimal(min: number, max: number) {
  return bounded(`${min} to ${max}`, (raw: string, name: string): number => {
    const value = DECIMAL_TEXT.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a number between ${min} and ${max}, got "${raw}"`);
    }
    return value;
  });
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 };
/** The largest size a number holds exactly (2^53 - 1 bytes), in the largest unit. */
const MAX_SIZE_SHOWN = `${Math.floor(Number.MAX_SAFE_INTEGER / 1024 ** 4)}TiB`;

/** A size in bytes, or with a binary unit as --help shows the defaults (`1GiB`, `512 MiB`, `1.5GiB`). */
function byteSize(min: number, minShown: string) {
  return bounded(`at least ${minShown}`, (raw: string, name: string): number => {
    const match = /^(\d+(?:\.\d+)?)\s*([kmgt]ib|b)?$/i.exec(raw.trim());
    const unit = match ? BYTE_UNITS[(match[2] ?? '').toLowerCase()]! : NaN;
    // A fraction of a unit is rounded down to whole bytes; a fraction of a byte is refused.
    const value = unit === 1 ? Number(match![1]) : Math.floor(Number(match?.[1]) * unit);
    if (value > Number.MAX_SAFE_INTEGER) throw new ConfigError(`${name} must be a size of at most ${MAX_SIZE_SHOWN}, got "${raw}"`);
    if (!Number.isSafeInteger(value) || value < min) {
      throw new ConfigError(`${name} must be a size of at least ${minShown}, in bytes or with a unit (KiB, MiB, GiB, TiB; e.g. 1GiB), got "${raw}"`);
    }
    return value;
  });
}

/** A value that may not be blank: an empty HOST had listened on every interface, an empty DATA_DIR used the working directory. */
function text(raw: string, name: string): string {
  if (raw.trim() === '') throw new ConfigError(`${name} must not be empty`);
  return raw;
}

/** A path, unset when empty; one of only white space is refused: taken as a file name, it failed only when the file was first used. */
function optionalPath(raw: string, name: string): string | null {
  if (raw === '') return null;
  if (raw.trim() === '') throw new ConfigError(`${name} must not be only white space (leave it empty to unset it)`);
  return raw;
}

/** `lmdb`, or a PostgreSQL URL (TCP, or the unix-socket form `postgresql:///db?host=/var/run/postgresql`). */
function platformStore(raw: string, name: string): string {
  if (raw === 'lmdb') return raw;
  if (!/^postgres(ql)?:\/\/[^\s]*$/.test(raw)) throw new ConfigError(`${name} must be 'lmdb' or a postgresql:// URL, got "${printableStoreUrl(raw)}"`);
  // Whether PostgreSQL's client can read it is asked when serve starts (run-command.ts): its parser is a package,
  // which the start decision the executable bundles may not load.
  return raw;
}

function boolean(raw: string, name: string): boolean {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false (or 1/0, yes/no, on/off), got "${raw}"`);
}

function oneOf<T extends string>(...values: T[]) {
  return (raw: string, name: string): T => {
    if ((values as string[]).includes(raw)) return raw as T;
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  };
}

/** `org/project`, as the platform names projects. */
function projectReference(raw: string, name: string): string {
  if (parseProjectRef(raw.replace(/^\//, '')) === null) throw new ConfigError(`${name} must be org/project (letters, digits, _ and -), got "${raw}"`);
  return raw;
}

/**
 * Where clients reach the server: every id and link is this text followed by `/v1/...`, so a
 * query, a fragment or user info would end up inside every id. A path is kept (a proxy serving
 * the server under a prefix); trailing slashes are dropped where it is used.
 */
function publicUrl(raw: string, name: string): string | null {
  if (raw === '') return null;
  let parsed: URL | null = null;
  try {
    parsed = new URL(raw);
  } catch {
    // reported below
  }
  if (!parsed || /\s/.test(raw) || !/^https?:$/.test(parsed.protocol) || raw.includes('?') || raw.includes('#') || parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(`${name} must be an http:// or https:// URL, optionally with a path, without user info, query or fragment, got "${raw}"`);
  }
  return raw;
}

/** Comma-separated web origins (`https://host[:port]`), or `*` for any origin. */
function originList(raw: string, name: string): string[] {
  const origins = raw.split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      // Browsers send the origin lowercased and without the scheme's default port: name that form when it is the only difference.
      const written = parsed && /^https?:$/.test(parsed.protocol) && parsed.href === `${parsed.origin}/` ? `; browsers send it as ${parsed.origin}` : '';
      throw new ConfigError(`${name} must list origins such as https://app.example:8443 (scheme, host, optional port; no path), got "${origin}"${written}`);
    }
  }
  return origins;
}

/** Ranges @fastify/proxy-addr knows by name: loopback (127.0.0.1/8, ::1), linklocal, uniquelocal (10/8, 172.16/12, 192.168/16, fc00::/7). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * The reverse proxies whose X-Forwarded-For is believed (comma-separated addresses, CIDR ranges or
 * range names), as fastify's trustProxy takes them; empty or `false` = none. Trusting every sender
 * (`true`, `*`, a /0 range) and hop counts are refused: a client reaching the server directly could
 * then name any address in the header, and take a fresh rate limit and in-flight share with each.
 */
function proxyList(raw: string, name: string): string[] {
  if (/^\s*(false)?\s*$/i.test(raw)) return [];
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    if (PROXY_RANGE_NAMES.includes(entry)) continue;
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const prefixFits = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128));
    if (family !== 0 && rest.length === 0 && prefixFits) continue;
    if (/^(true|\*|all)$/i.test(entry) || (family !== 0 && /^0+$/.test(prefix ?? ''))) {
      throw new ConfigError(`${name} must name the proxies to trust: "${entry}" trusts every sender, so any client could choose its address with X-Forwarded-For`);
    }
    if (/^\d+$/.test(entry)) throw new ConfigError(`${name} takes the proxies' addresses, not a hop count ("${entry}"): a count cannot tell who sent X-Forwarded-For`);
    throw new ConfigError(
      `${name} must list proxy addresses or CIDR ranges, comma-separated (e.g. 10.0.0.7, 10.0.0.0/8, ::1, or loopback, linklocal, uniquelocal), got "${entry}"`,
    );
  }
  return entries;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a longer one fires after 1 ms instead. */
const MAX_DURATION_MS = 24 * 86_400_000;

/** How --help and messages write a duration bound: `100ms`, `1s`, `30m`, `24d`. */
function shownDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms / 1000}s`;
}

function durationRange(minMs: number, maxMs: number): string {
  return `${shownDuration(minMs)} to ${shownDuration(maxMs)}`;
}

/** Parses durations such as `5h`, `30m`, `90s`, `1h30m` or a bare number of seconds into milliseconds, from `minMs` to `maxMs` (24 days at most). */
export function parseDuration(raw: string, name = 'duration', minMs = 1, maxMs = MAX_DURATION_MS): number {
  // A bare number counts seconds.
  const text = /^\d+$/.test(raw.trim()) ? `${raw.trim()}s` : raw.trim();
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== text) {
    throw new ConfigError(`${name} must be a duration such as 5h, 30m or 90s, got "${raw}"`);
  }
  const millis = parts.reduce((sum, p) => sum + Number(p[1]) * DURATION_UNITS[p[2]!]!, 0);
  if (millis < minMs || millis > maxMs) {
    throw new ConfigError(`${name} must be from ${durationRange(minMs, maxMs)}, got "${raw}"`);
  }
  return millis;
}

/** A duration setting from `minMs` to `maxMs`. */
function durationFrom(minMs: number, maxMs = MAX_DURATION_MS) {
  return bounded(durationRange(minMs, maxMs), (raw: string, name: string): number => parseDuration(raw, name, minMs, maxMs));
}

const duration = durationFrom(1);

function idPrefix(raw: string, name: string): string | null {
  if (raw === '') return null;
  // Ids travel in URLs (resource ids of the literature project): keep prefixes to URL-safe characters.
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(raw)) throw new ConfigError(`${name} must be 1 to 64 letters, digits or . _ : -, got "${raw}"`);
  return raw;
}

const mergeFactor = bounded('0, or 2 to 1000', (raw: string, name: string): number => {
  const value = INTEGER_TEXT.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || (value !== 0 && (value < 2 || value > 1000))) {
    throw new ConfigError(`${name} must be 0 (never merge automatically) or an integer from 2 to 1000, got "${raw}"`);
  }
  return value;
});

const INPUT_FORMATS = ['articles-jsonl', 'jats', 'pubmed', 'beir'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Settings of the ingest and eval commands only (shared ones carry `commands` in the table below). */
const COMMAND_SETTINGS = {
  input: {
    default: [] as string[],
    parse: text,
    multiple: true,
    paths: 'file or folder',
    env: 'INGEST_INPUT',
    commands: ['ingest'],
    doc: 'Files or folders to ingest (several may follow one --input); folders are read recursively, without their hidden entries (names starting with ".", counted in the summary).',
  },
  delete: {
    default: [] as string[],
    parse: text,
    multiple: true,
    valueName: 'ID',
    env: 'INGEST_DELETE',
    commands: ['ingest'],
    doc: 'Article ids to delete (several may follow one --delete), applied after the inputs of the same run.',
  },
  deleteFile: {
    default: [] as string[],
    parse: text,
    multiple: true,
    paths: 'file',
    valueName: 'FILE',
    env: 'INGEST_DELETE_FILE',
    commands: ['ingest'],
    doc: 'Files of article ids to delete, one per line.',
  },
  merge: { default: false, parse: boolean, env: 'INGEST_MERGE', commands: ['ingest'], doc: 'Rewrite the whole index into one segment without its deleted articles (after the rest of the run).' },
  mergeFactor: {
    default: DEFAULT_MERGE_FACTOR,
    parse: mergeFactor,
    commands: ['ingest'],
    doc: 'Automatic merge policy after each ingestion: this many adjacent segments of similar size are merged into one; 0 never merges automatically.',
  },
  format: {
    default: null as (typeof INPUT_FORMATS)[number] | null,
    parse: oneOf(...INPUT_FORMATS),
    env: 'INGEST_FORMAT',
    commands: ['ingest'],
    doc: `Format of every input (${INPUT_FORMATS.join(', ')}). Default: detected per file.`,
  },
  maxSegmentMb: {
    default: null as number | null,
    parse: decimal(0.001, 1_000_000),
    commands: ['ingest'],
    shownDefault: String(DEFAULT_MAX_SEGMENT_BYTES / (1024 * 1024)),
    doc: 'Size at which a new index segment is started, in MiB.',
  },
  storedCompression: {
    default: DEFAULT_STORED_COMPRESSION as StoredCompression,
    parse: oneOf(...COMPRESSIONS),
    commands: ['ingest'],
    doc: 'Layout of the stored-fields files written (new and merged segments): dictionary (tokens coded per fragment: small and fast to serve), none (plain) or deflate (16 KiB chunks: smallest, slow to serve).',
  },
  idPrefix: {
    default: null as string | null,
    parse: idPrefix,
    env: 'INGEST_ID_PREFIX',
    commands: ['ingest'],
    doc: 'Prepended to every article_id of this run (letters, digits, . _ : -), so sources with overlapping ids (PMIDs, BEIR _ids) do not replace each other.',
  },
  corpus: { default: null as string | null, parse: optionalPath, paths: 'file', env: 'EVAL_CORPUS', commands: ['eval'], doc: 'BEIR corpus.jsonl indexed into a scratch index (or give --index).' },
  queries: { default: null as string | null, parse: optionalPath, paths: 'file', env: 'EVAL_QUERIES', commands: ['eval'], requiredBy: ['eval'], doc: 'BEIR queries.jsonl.' },
  qrels: { default: null as string | null, parse: optionalPath, paths: 'file', env: 'EVAL_QRELS', commands: ['eval'], requiredBy: ['eval'], doc: 'Qrels: BEIR .tsv (query-id, corpus-id, score) or TREC (query-id, iteration, doc-id, relevance; white space between).' },
} satisfies Record<string, Setting<unknown>>;

const SETTINGS = {
  host: { default: '127.0.0.1', parse: text, doc: 'Address to listen on (0.0.0.0 for every interface).' },
  port: { default: 8080, parse: integer(0, 65535), short: 'p', doc: 'TCP port to listen on.' },
  data: { default: 'var', parse: text, paths: 'folder', env: 'DATA_DIR', doc: 'Data directory: platform store, file contents, archives and the default index.' },
  index: {
    default: null as string | null,
    parse: optionalPath,
    paths: 'folder',
    env: 'INDEX_DIR',
    commands: ['serve', 'ingest', 'eval'],
    requiredBy: ['ingest'],
    // eval has no default index (it needs --corpus or --index); ingest requires one.
    shownDefault: { serve: '<data>/index' },
    doc: {
      serve: 'Index directory to serve. Default: <data>/index, built from the demo corpus on first start.',
      ingest: 'Index directory to write into (made if missing).',
      eval: 'Index directory to evaluate, built already (instead of --corpus).',
    },
  },
  demoCorpus: {
    default: 'data/demo/articles.jsonl',
    parse: text,
    paths: 'file',
    // The executable points it at the copy it carries (binary-main.ts): the checkout's path would mislead there.
    shownDefault: 'data/demo/articles.jsonl; in the executable, the copy it carries',
    doc: 'Corpus ingested into the default index when it is absent.',
  },
  searchThreads: {
    default: availableParallelism(),
    parse: integer(0, 256),
    commands: ['serve', 'eval'],
    doc: 'Search worker threads; 0 searches on the main thread. The default is the CPU count of the machine it runs on.',
  },
  bm25K1: { default: 0.6, parse: decimal(0, 10), commands: ['serve', 'eval'], doc: 'BM25 term-frequency saturation k1 (chosen on SciFact train: bench/results/bm25-tuning.md).' },
  bm25B: { default: 0.75, parse: decimal(0, 1), commands: ['serve', 'eval'], doc: 'BM25 length normalisation b.' },
  titleWeight: { default: 0.25, parse: decimal(0, 10), commands: ['serve', 'eval'], doc: 'Weight of the article-title field relative to paragraph text.' },
  filterCacheSize: { default: 512, parse: integer(0, 100_000), commands: ['serve', 'eval'], doc: 'Number of compiled filters (bitsets) kept in memory.' },
  indexWatch: {
    default: true,
    parse: boolean,
    doc: 'Switch to a newly published index generation (after an ingest or merge) without a restart: a watch on the index directory plus a periodic check. POST /admin/reload works either way.',
  },
  indexPollInterval: {
    default: 2000,
    // Each check reads the manifest: more often than ten times a second is a busy loop.
    parse: durationFrom(100),
    shownDefault: '2s',
    doc: 'How often the index manifest is checked for a new generation, bounding how late an update is seen when the directory watch misses it.',
  },
  maxQueryLength: { default: 10_000, parse: integer(1, 1_000_000), doc: 'Longest accepted question, in characters (413 above).' },
  maxParagraphLength: {
    default: 100_000,
    parse: integer(1, 100_000_000),
    doc: 'Paragraphs this long or longer (characters) are not given to the answer generator, and are cut to it in retrieval responses.',
  },
  logLevel: {
    default: 'info' as const,
    parse: oneOf(...LOG_LEVELS),
    doc: `Log level: ${LOG_LEVELS.join(', ')}.`,
  },
  llmModel: { default: null as string | null, parse: optionalPath, paths: 'file', doc: 'GGUF file of the language model; unset uses the extractive generator.' },
  llmGpu: { default: false, parse: boolean, doc: 'Run the language model on the GPU.' },
  llmThreads: {
    default: Math.max(1, Math.floor(availableParallelism() / 2)),
    parse: integer(1, 256),
    doc: 'CPU threads of the language model. The default is half the cores of the machine it runs on (llama.cpp slows sharply when it competes for every core).',
  },
  llmContextSize: { default: 4096, parse: integer(256, 131_072), doc: "Context window of the language model, in tokens; lowered to the model's training context when larger (/settings shows the one in force)." },
  llmMaxTokens: { default: 512, parse: integer(16, 16_384), doc: "Most tokens generated per answer; the rest of the context window is the prompt's, which should keep at least half of it (a warning at start otherwise; a model that leaves no room for any prompt is refused)." },
  llmTemperature: { default: 0, parse: decimal(0, 2), doc: 'Sampling temperature (0 = greedy).' },
  llmQueueSize: { default: 8, parse: integer(1, 10_000), doc: 'Questions waiting for the generator (the model, or QA reranking) before 429.' },
  llmQueuePerClient: {
    default: null as number | null,
    parse: integer(0, 10_000),
    shownDefault: 'half of the queue, rounded up',
    doc: "Places in the generator's queue one IP address (an IPv6 one by its /64; the client behind a --trust-proxy proxy) may hold, the question being answered and those waiting; further questions from it get the 429 of --llm-queue-size while other callers are still admitted. Default: half of the queue's --llm-queue-size + 1 places, rounded up (5 of 9); 0 = no limit.",
  },
  rerankerModel: { default: null as string | null, parse: optionalPath, paths: 'folder', doc: 'Directory with model.onnx and tokenizer.json; unset disables reranking.' },
  rerankerThreads: { default: 1, parse: integer(1, 256), doc: 'Intra-op threads of the reranker.' },
  rerankerBatchSize: { default: 32, parse: integer(1, 1024), doc: 'Pairs scored per reranker batch.' },
  rerankerQueueSize: { default: 8, parse: integer(1, 10_000), doc: 'Rerankings waiting for the reranker (one scores at a time) before 429.' },
  rerankerQueuePerClient: {
    default: null as number | null,
    parse: integer(0, 10_000),
    shownDefault: 'half of the queue, rounded up',
    doc: "Places in the reranker's queue one IP address (an IPv6 one by its /64; the client behind a --trust-proxy proxy) may hold, the reranking being scored and those waiting; further rerankings from it get the 429 of --reranker-queue-size while other callers are still admitted. Default: half of the queue's --reranker-queue-size + 1 places, rounded up (5 of 9); 0 = no limit.",
  },
  authFile: { default: null as string | null, parse: optionalPath, paths: 'file', doc: 'JSON file of bearer tokens and ACLs; unset = anonymous read-only.' },
  platformStore: {
    default: 'lmdb',
    parse: platformStore,
    printable: printableStoreUrl,
    env: 'PLATFORM_STORE',
    doc: "Platform store: 'lmdb' (embedded, under --data) or a PostgreSQL URL shared by replicas (postgresql://user@host/db, or postgresql:///db?host=/var/run/postgresql).",
  },
  blobDir: { default: null as string | null, parse: optionalPath, paths: 'folder', env: 'BLOB_DIR', shownDefault: '<data>/platform/files', doc: 'Where file contents live (default <data>/platform/files); replicas of one store share one, servers of two stores are refused. A folder of its own: the data directory, a folder holding it, the store or the index are refused.' },
  archiveTtl: { default: 5 * 3_600_000, parse: duration, shownDefault: '5h', doc: 'Lifetime of an archive (e.g. 5h, 30m).' },
  maxArchivesPerCaller: {
    default: 100,
    parse: integer(1, 1_000_000),
    doc: 'Live (unexpired) archives one caller may hold (a user whatever its address; anonymous callers each by IP address, an IPv6 one by its /64, the client behind a --trust-proxy proxy); creating more is 429 ArchiveQuotaExceeded until one expires.',
  },
  maxArchiveStoreBytes: {
    default: 1024 ** 3,
    parse: byteSize(1024 * 1024, '1MiB'),
    shownDefault: '1GiB',
    doc: 'Total size of the stored archive definitions (bytes, or with a unit such as MiB or GiB); beyond it creating archives is 503 ArchiveStorageFull until some expire.',
  },
  maxArchiveDownloadsPerClient: {
    default: 2,
    parse: integer(0, 1_000_000),
    doc: 'Archive ZIP downloads one IP address (an IPv6 one by its /64; the client behind a --trust-proxy proxy) may have in progress at once; one more is 429 TooManyRequests with Retry-After. Each may keep about two thirds of a core busy: deflating and checksumming a file that shrinks a thousandfold costs that much CPU per byte sent. 0 = no limit.',
  },
  literatureProject: { default: 'literature/articles', parse: projectReference, doc: 'Read-only project exposing the indexed articles as resources.' },
  publicUrl: {
    default: null as string | null,
    parse: publicUrl,
    shownDefault: 'http://<host>:<port>',
    doc: 'URL clients reach the server at: prefix of resource ids, _self links and archive redirects. Default: http://<host>:<port>, with the port listened on (the one the system picked for --port 0).',
  },
  maxUploadBytes: { default: 10 * 1024 ** 3, parse: byteSize(1, '1 byte'), shownDefault: '10GiB', doc: 'Largest file upload, in bytes or with a unit such as MiB or GiB (413 above).' },
  rateLimit: {
    default: 600,
    parse: integer(0, 1_000_000),
    doc: 'Requests per minute per caller (the user a bearer token identifies, else the IP address, an IPv6 one by its /64: the client\'s behind a --trust-proxy proxy) before 429; 0 disables the limit.',
  },
  shutdownTimeout: {
    default: 30_000,
    parse: duration,
    shownDefault: '30s',
    doc: 'On SIGTERM, SIGINT or SIGHUP from a terminal (to a server without one, SIGHUP reads the auth file again), how long in-flight requests (downloads included) may run before their connections are cut.',
  },
  maxInFlight: {
    default: 256,
    parse: integer(0, 1_000_000),
    doc: 'Requests served at once; further ones get 503 with Retry-After instead of queueing without bound. 0 = no limit.',
  },
  maxInFlightPerClient: {
    default: null as number | null,
    parse: integer(0, 1_000_000),
    shownDefault: 'half of --max-in-flight',
    doc: 'Requests one IP address (an IPv6 one by its /64; the client behind a --trust-proxy proxy) may have served at once; further ones from it get the 503 of --max-in-flight while other callers are served. Default: half of --max-in-flight (none when that is 0); 0 = no limit. Behind a proxy not in --trust-proxy, all clients together get this share.',
  },
  sendStallTimeout: {
    default: 60_000,
    parse: durationFrom(1000),
    shownDefault: '60s',
    doc: 'Longest a client may leave a response unread (nothing of it taken while some is waiting) before its connection is cut; a slow but steady reader is never cut.',
  },
  maxConnections: {
    default: null as number | null,
    parse: integer(1, 10_000_000),
    shownDefault: '80% of the open-file limit',
    doc: 'Connections open at once; further ones are closed as they arrive, so descriptors stay for index files, the store and uploads. Default: 80% of the open-file limit (ulimit -n).',
  },
  maxConnectionsPerClient: {
    default: 1024,
    parse: integer(0, 10_000_000),
    doc: 'Connections one IP address (an IPv6 one by its /64) may hold open at once; further ones are closed as they arrive (a flood from one address had taken every descriptor). Behind a reverse proxy every client has its address: raise it or set 0 = no limit.',
  },
  trustProxy: {
    default: [] as string[],
    parse: proxyList,
    shownDefault: 'none',
    doc: 'Reverse proxies whose X-Forwarded-For names the client (comma-separated addresses or CIDR ranges, or loopback, linklocal, uniquelocal), so the rate limit and --max-in-flight-per-client count each client behind them; connection caps stay per socket address. Default: none, every client is its socket address.',
  },
  requestTimeout: {
    default: 300_000,
    // It covers receiving a request (headers and body), not answering it: QA streams and downloads run past it.
    // Node looks for late requests every 250 ms at best (app.ts), and a client on a slow link or behind a proxy
    // can take most of a second for its headers alone: shorter, uploads and plain requests alike would get 408.
    // At most 30 minutes: an upload left in --blob-dir's tmp/ untouched for an hour is taken for one a killed server
    // abandoned and collected (blobs.ts, COLLECTION_GRACE_MS), which holds only while a whole request arrives well
    // within the hour; the other half leaves room for clocks of replicas sharing the directory that disagree.
    // There is no 0 = no timeout: without a bound, that rule could remove an upload still arriving.
    parse: durationFrom(1000, 30 * 60_000),
    shownDefault: '300s',
    doc: 'Longest a client may take to send a whole request (headers and body, uploads included) before 408; guards against slow clients holding sockets. At most 30m: an upload untouched for an hour in --blob-dir is collected as abandoned.',
  },
  corsOrigins: {
    default: [] as string[],
    parse: originList,
    shownDefault: 'none',
    doc: 'Web origins whose pages may call the literature routes and /v1 (comma-separated; * = any). Credentials are never allowed: tokens travel in the Authorization header.',
  },
  cacheDir: {
    default: null as string | null,
    parse: optionalPath,
    paths: 'folder',
    env: 'LITSERVE_CACHE_DIR',
    // Read by the executable before any command runs: every command takes it.
    commands: ['serve', 'ingest', 'eval'],
    shownDefault: '$XDG_CACHE_HOME/litserve',
    doc: 'Single executable only: where it writes the native libraries it carries (first start; checked by hash on every start). Default: $XDG_CACHE_HOME/litserve, else ~/.cache/litserve.',
  },
  quiet: {
    default: false,
    parse: boolean,
    // QUIET alone is too generic a name for the environment.
    env: 'LITSERVE_QUIET',
    // serve builds the demo index on its first start, with progress like ingest's.
    commands: ['serve', 'ingest', 'eval'],
    doc: 'No progress output (no bars on a terminal, no progress lines elsewhere); warnings, errors and summary lines still print.',
  },
  ...COMMAND_SETTINGS,
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
export type Config = { [K in keyof Settings]: Settings[K]['default'] } & {
  /** Always a folder once loaded: `<data>/index` when none was given (indexIsDefault). */
  index: string;
  indexIsDefault: boolean;
  /** Where each setting not left at its default was given, so that messages name what the user typed or exported. */
  givenIn: Partial<Record<SettingName, 'flag' | 'environment'>>;
};

/** A setting's default, for callers given no value (tests, benchmarks, services opened without a command line): written only here. */
export function defaultOf<K extends SettingName>(key: K): Config[K] {
  return SETTINGS[key].default as Config[K];
}

function flagOf(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function envOf(key: string): string {
  return (SETTINGS as Record<string, Setting<unknown>>)[key]?.env ?? flagOf(key).replace(/-/g, '_').toUpperCase();
}

/**
 * A setting as the user gave it, for a message about its value: `--corpus scifact/corpus.jsonl`, or
 * `INDEX_DIR=/srv/index (from the environment)`, since a variable exported long ago is easily forgotten.
 */
export function givenAs<K extends SettingName>(config: Pick<Config, K | 'givenIn'>, key: K): string {
  const value = String(config[key]);
  return config.givenIn[key] === 'environment' ? `${envOf(key)}=${value} (from the environment)` : `--${flagOf(key)} ${value}`;
}

const TABLE = SETTINGS as Record<string, Setting<unknown>>;

/** One-letter aliases and the flags they stand for (`-p` -> `--port`). */
const SHORT_FLAGS = new Map<string, string>();
for (const [key, setting] of Object.entries(TABLE)) if (setting.short) SHORT_FLAGS.set(`-${setting.short}`, `--${flagOf(key)}`);

/** The setting of a flag's key; own keys only, so `--constructor` or `--to-string` is no setting. */
function settingOf(key: string): Setting<unknown> | undefined {
  return Object.hasOwn(TABLE, key) ? TABLE[key] : undefined;
}

function takes(setting: Setting<unknown>, command: Command): boolean {
  return (setting.commands ?? ['serve']).includes(command);
}

/**
 * Builds the configuration of `command` from `--flag value` / `--flag=value` / `-p value`
 * arguments and the environment. Settings the command does not take keep
 * their defaults; their flags are unknown options for it.
 */
export function loadConfig(argv: readonly string[] = [], env: NodeJS.ProcessEnv = process.env, command: Command = 'serve'): Config {
  const fromFlags = parseFlags(argv, command);
  const config: Record<string, unknown> = {};
  const givenIn: Config['givenIn'] = {};
  for (const [key, setting] of Object.entries(TABLE)) {
    const flag = flagOf(key);
    const name = `--${flag} / ${envOf(key)}`;
    const raw = takes(setting, command) ? (fromFlags.get(flag) ?? (env[envOf(key)] === undefined ? undefined : [env[envOf(key)]!])) : undefined;
    if (raw !== undefined) givenIn[key as SettingName] = fromFlags.has(flag) ? 'flag' : 'environment';
    if (raw === undefined) {
      if (setting.requiredBy?.includes(command)) throw new ConfigError(`${command} needs --${flag}; see --help`);
      config[key] = setting.default;
    } else {
      const values = raw.map((value) => setting.parse(value, name));
      config[key] = setting.multiple ? values : values.at(-1);
      // An empty value unsets a path; a required one may not be unset: `--index "$UNSET_VARIABLE"` had
      // written into the default index, the one `npm start` serves.
      if (config[key] === null && setting.requiredBy?.includes(command)) throw new ConfigError(`${command} needs --${flag}, given empty (${name}); see --help`);
    }
  }
  const resolved = config as Config;
  resolved.givenIn = givenIn;
  // The default is relative to the working directory, and from `/` (a service unit without WorkingDirectory, a
  // root shell) it is the system's own /var, where a server had made `index` and `platform` beside the system's.
  if (takes(TABLE.data!, command) && givenIn.data === undefined && path.resolve(resolved.data) === path.resolve('/', String(TABLE.data!.default))) {
    throw new ConfigError(`${command} started from / needs --data: the default, ${TABLE.data!.default}, is relative to the working directory and would be the system's /${TABLE.data!.default}; see --help`);
  }
  resolved.indexIsDefault = resolved.index === null;
  if (resolved.index === null) resolved.index = path.join(resolved.data, 'index');
  return resolved;
}

/** `-p` and `-p=9000` as `--port` and `--port=9000`; other arguments as they are. */
function longForm(arg: string): string {
  const short = /^(-[a-zA-Z])(=.*)?$/.exec(arg);
  const flag = short ? SHORT_FLAGS.get(short[1]!) : undefined;
  return flag === undefined ? arg : flag + (short![2] ?? '');
}

/** Raw values per flag; a flag given twice keeps both (the last wins unless the setting takes several). */
function parseFlags(argv: readonly string[], command: Command): Map<string, string[]> {
  const values = new Map<string, string[]>();
  let lastMultiple: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const match = /^--([^=]+)(?:=(.*))?$/.exec(longForm(arg));
    if (!match) {
      // `--input a b c`: values after a multi-valued flag belong to it.
      if (lastMultiple !== null) {
        checkPathValue(arg, lastMultiple, command);
        values.get(lastMultiple)!.push(arg);
        continue;
      }
      // `-v` is worded as `--bogus` is: it had been an "unexpected argument", a second vocabulary for one mistake.
      if (DASH_WORD.test(arg)) throw new ConfigError(`unknown option ${arg} for ${command}${didYouMean(arg, command)}; see --help`);
      throw new ConfigError(`unexpected argument "${arg}"; see --help`);
    }
    const name = match[1]!;
    const setting = /^[a-z0-9-]+$/.test(name) ? settingOf(camelOf(name)) : undefined;
    if (!setting || !takes(setting, command)) throw new ConfigError(unknownOption(name, command));
    let value = match[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || longForm(next).startsWith('--')) {
        // A bare boolean flag (`--llm-gpu`) means true.
        if (setting.parse === boolean) value = 'true';
        else throw new ConfigError(`option --${name} needs a value`);
      } else {
        if (setting.multiple) checkPathValue(next, name, command);
        else checkSinglePathValue(next, name, command);
        value = next;
        i++;
      }
    }
    values.set(name, [...(values.get(name) ?? []), value]);
    lastMultiple = setting.multiple ? name : null;
  }
  return values;
}

/** A value of a many-valued path flag that names nothing and starts with a dash is a mistyped option: `--input f.nxml -q` had read -q as an input, then failed on a missing "-q". */
function checkPathValue(value: string, flag: string, command: Command): void {
  if (DASH_WORD.test(value) && settingOf(camelOf(flag))!.paths && !existsSync(value)) {
    throw new ConfigError(`${value}, after --${flag}, is no file or folder and looks like an option: unknown option ${value} for ${command}${didYouMean(value, command)}; see --help`);
  }
}

/**
 * A single-valued path flag followed by an option, or a near miss of one (`--index -q --input x`), was given no
 * value: `-q` had become the index folder. A path that starts with a dash is still given as `./-q`.
 */
function checkSinglePathValue(value: string, flag: string, command: Command): void {
  const kind = settingOf(camelOf(flag))!.paths;
  if (kind === undefined || !DASH_WORD.test(value)) return;
  const meant = meantFlags(value, command);
  const named = settingOf(camelOf(value.replace(/^-+/, '').replace(/=.*$/, ''))) !== undefined;
  if (meant.length === 0 && !named) return;
  throw new ConfigError(
    `--${flag} needs a ${kind}, and "${value}" looks like an option${meant.length > 0 ? ` (${listFlags(meant)}?)` : ''}; ` +
      `a ${kind} whose name starts with a dash is written ./${value}; see --help`,
  );
}

/** Names the command an option belongs to, or the option the user probably meant. */
function unknownOption(name: string, command: Command): string {
  const known = settingOf(camelOf(name));
  if (known) {
    const owners = COMMANDS.filter((other) => takes(known, other)).join(', ');
    return `unknown option --${name} for ${command} (an option of ${owners}); see --help`;
  }
  return `unknown option --${name} for ${command}${didYouMean(name, command)}; see --help`;
}

/** A word with one dash (`-q`, `-quiet`, `-x=1`): an option mistyped, not a value. */
const DASH_WORD = /^-[a-zA-Z]/;

/** ` (did you mean --port?)`, or nothing when no option of the command is near what was typed. */
function didYouMean(typed: string, command: Command): string {
  const meant = meantFlags(typed, command);
  return meant.length > 0 ? ` (did you mean ${listFlags(meant)}?)` : '';
}

function listFlags(flags: string[]): string {
  return alternatives(flags.map((flag) => `--${flag}`));
}

/** A lone letter (`-i`) is answered with the flags it starts, when they are this few. */
const MAX_LETTER_SUGGESTIONS = 3;

/**
 * The options of `command` a mistyped one probably stands for: the flag of an environment variable written
 * as a flag (`--index-dir` for INDEX_DIR), a near spelling (`--prot`, `--Port`, `--llm_model`), a flag with
 * a word added (`--index-path`), or the flags a lone letter starts (`-q`).
 */
function meantFlags(typed: string, command: Command): string[] {
  const name = typed.replace(/^-+/, '').replace(/=.*$/, '').toLowerCase().replace(/_/g, '-');
  const keys = Object.keys(TABLE).filter((key) => takes(TABLE[key]!, command));
  const byVariable = keys.filter((key) => envOf(key).toLowerCase().replace(/_/g, '-') === name);
  if (byVariable.length > 0) return byVariable.map(flagOf);
  const flags = keys.map(flagOf);
  if (name.length === 1) {
    const starting = flags.filter((flag) => flag.startsWith(name));
    return starting.length <= MAX_LETTER_SUGGESTIONS ? starting : [];
  }
  const near = flags
    .map((flag) => ({ flag, distance: editDistance(name, flag) }))
    .filter(({ distance }) => distance <= Math.max(1, Math.floor(name.length / 4)))
    .sort((a, b) => a.distance - b.distance);
  // A one-letter slip beats a word added; a word added beats a flag two letters off (`--index-path` is not `--index-watch`).
  if (near.length > 0 && near[0]!.distance <= 1) return [near[0]!.flag];
  const extended = flags.filter((flag) => name.startsWith(`${flag}-`)).sort((a, b) => b.length - a.length);
  if (extended.length > 0) return [extended[0]!];
  return near.slice(0, 1).map(({ flag }) => flag);
}

/** Edit distance counting insertions, deletions, substitutions and swaps of neighbours (`prot` is one from `port`). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i]!;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

function camelOf(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

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

/** The options of one command, generated from the table. */
export function helpText(command: Command = 'serve'): string {
  const lines = ['Options (flag / environment variable, default):'];
  for (const [key, setting] of Object.entries(TABLE)) {
    if (!takes(setting, command)) continue;
    const shownDefault = setting.requiredBy?.includes(command)
      ? 'required'
      : `default: ${forCommand(setting.shownDefault, command) ?? (setting.default === null ? 'unset' : JSON.stringify(setting.default))}`;
    const range = (setting.parse as { range?: string }).range;
    const shown = range === undefined ? shownDefault : `${shownDefault}; ${range}`;
    // Several values follow one flag; the variable holds one (a path or an id may hold spaces, so it is not split).
    const variable = setting.multiple ? `${envOf(key)} (one value)` : envOf(key);
    lines.push(`  ${setting.short ? `-${setting.short}, ` : ''}--${flagOf(key)}${setting.multiple ? ` ${setting.valueName ?? 'PATH'}...` : ''} / ${variable}  (${shown})`);
    lines.push(`      ${forCommand(setting.doc, command)}`);
  }
  return lines.join('\n');
}

function forCommand(text: string | Partial<Record<Command, string>> | undefined, command: Command): string | undefined {
  return typeof text === 'object' ? text[command] : text;
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
