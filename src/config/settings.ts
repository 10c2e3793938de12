/**
 * The settings table: every setting of every command, with its default, its parser (and so its bounds), what --help
 * says of it and which commands take it.
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_MAX_SEGMENT_BYTES, DEFAULT_MERGE_FACTOR } from '../search/defaults.js';
import { printableStoreUrl } from '../platform/store/printable-url.js';
import { COMPRESSIONS, DEFAULT_STORED_COMPRESSION, type StoredCompression } from '../search/stored/format.js';
import {
  boolean,
  byteSize,
  decimal,
  duration,
  durationFrom,
  idPrefix,
  integer,
  mergeFactor,
  oneOf,
  optionalPath,
  originList,
  platformStore,
  projectReference,
  proxyList,
  publicUrl,
  text,
} from './parsers.js';

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
  merge: {
    default: false,
    parse: boolean,
    env: 'INGEST_MERGE',
    commands: ['ingest'],
    doc: 'Rewrite the whole index into one segment without its deleted articles (after the rest of the run).',
  },
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
  corpus: {
    default: null as string | null,
    parse: optionalPath,
    paths: 'file',
    env: 'EVAL_CORPUS',
    commands: ['eval'],
    doc: 'BEIR corpus.jsonl indexed into a scratch index (or give --index).',
  },
  queries: { default: null as string | null, parse: optionalPath, paths: 'file', env: 'EVAL_QUERIES', commands: ['eval'], requiredBy: ['eval'], doc: 'BEIR queries.jsonl.' },
  qrels: {
    default: null as string | null,
    parse: optionalPath,
    paths: 'file',
    env: 'EVAL_QRELS',
    commands: ['eval'],
    requiredBy: ['eval'],
    doc: 'Qrels: BEIR .tsv (query-id, corpus-id, score) or TREC (query-id, iteration, doc-id, relevance; white space between).',
  },
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
  llmContextSize: {
    default: 4096,
    parse: integer(256, 131_072),
    doc: "Context window of the language model, in tokens; lowered to the model's training context when larger (/settings shows the one in force).",
  },
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
  maxUploadBytes: {
    default: 10 * 1024 ** 3,
    parse: byteSize(1, '1 byte'),
    shownDefault: '10GiB',
    doc: 'Largest file upload, in bytes or with a unit such as MiB or GiB (413 above).',
  },
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
    doc: 'Connections one IP address (an IPv6 one by its /64) may hold open at once; further ones are closed as they arrive, so that a flood from one address cannot take every descriptor. Behind a reverse proxy every client has its address: raise it or set 0 = no limit.',
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

/** The table keyed by plain strings, for the code that walks it or looks up a name the user typed. */
export const TABLE = SETTINGS as Record<string, Setting<unknown>>;

/** The setting of a flag's key; own keys only, so `--constructor` or `--to-string` is no setting. */
export function settingOf(key: string): Setting<unknown> | undefined {
  return Object.hasOwn(TABLE, key) ? TABLE[key] : undefined;
}

export function takes(setting: Setting<unknown>, command: Command): boolean {
  return (setting.commands ?? ['serve']).includes(command);
}
