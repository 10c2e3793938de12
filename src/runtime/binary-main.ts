/**
 * Entry of the single executable (dist/litserve, built by
 * scripts/build-binary.ts): answers what the arguments alone decide
 * (--version, --help, option errors, a path given that is not there) without
 * writing anything; otherwise
 * extracts the carried files to the cache, tells the server where they are,
 * then runs the command (src/run-command.ts) on the settings it decided with.
 */
import { getAsset, getRawAsset } from 'node:sea';
import path from 'node:path';
import { CARRIED_ROOT_ENV, importCarried } from './carried.js';
import { carriedTreeOf, defaultCacheDir, extractCarried, MANIFEST_ASSET, otherBuilds, type CarriedManifest } from './extract.js';
import { watchIngestStart } from '../ingest-start-interruption.js';
import { noexecMountOf } from './noexec-mount.js';
import { loadStartDecision, printDecision, START_DECISION_ASSET } from './start-decision-bundle.js';
import type { StartDecision } from '../start-decision.js';

/** Settings whose default is a file of the checkout; the executable points them at its own copy. */
const CARRIED_DEFAULTS: Record<string, string> = { DEMO_CORPUS: 'data/demo/articles.jsonl' };

function asset(key: string): Uint8Array {
  const raw = getRawAsset(key);
  return typeof raw === 'string' ? Buffer.from(raw) : new Uint8Array(raw);
}

/** Only white space: taken as a directory name, the libraries would go to a directory named by spaces (the settings refuse it, but only later). */
const isBlank = (value: string) => value !== '' && value.trim() === '';

function refuseBlankCacheDir(): never {
  process.stderr.write('error: --cache-dir / LITSERVE_CACHE_DIR must not be only white space (leave it empty to unset it)\n');
  process.exit(2);
}

const isCacheDirFlag = (arg: string) => arg === '--cache-dir' || arg.startsWith('--cache-dir=');

/**
 * `--cache-dir DIR` / `--cache-dir=DIR`, removed from argv: it is read here, before any command
 * parses its flags. Every occurrence is removed and the last wins, as for the other flags; a second
 * one left in argv would reach the command, which does not know it.
 */
function takeCacheDirFlag(argv: string[]): string | undefined {
  let value: string | undefined;
  for (let at = argv.findIndex(isCacheDirFlag); at >= 0; at = argv.findIndex(isCacheDirFlag)) {
    const [flag] = argv.splice(at, 1);
    value = flag!.includes('=') ? flag!.slice(flag!.indexOf('=') + 1) : argv.splice(at, 1)[0];
    if (!value) {
      process.stderr.write('error: option --cache-dir needs a value\n');
      process.exit(2);
    }
    if (isBlank(value)) refuseBlankCacheDir();
  }
  return value;
}

/**
 * node-llama-cpp checks its binary in a child process that runs one of its own
 * files (`fork(file)`, which starts this executable with the file as first
 * argument). For a file of the extracted tree, act as Node would: run it.
 */
function carriedScriptArgument(): string | null {
  const root = process.env[CARRIED_ROOT_ENV];
  const script = process.argv[2];
  return root && script && path.isAbsolute(script) && script.startsWith(root + path.sep) ? script : null;
}

/** Every new build adds a tree to the cache; without this note old ones pile up unseen. */
function reportOtherBuilds(root: string): void {
  const others = otherBuilds(root);
  if (others.length === 0) return;
  const mib = (others.reduce((sum, other) => sum + other.bytes, 0) / 2 ** 20).toFixed(0);
  process.stderr.write(
    `litserve: ${path.dirname(root)} also holds ${others.length} other build(s) (${others.map((other) => path.basename(other.dir)).join(', ')}; ${mib} MiB): ` +
      'delete them once no litserve of those builds runs\n',
  );
}

/** What the tree held besides the carried files is said: nothing the executable writes is left there but by a start killed mid-write. */
function reportRemoved(root: string, removed: string[]): void {
  const named = removed.slice(0, 5).join(', ') + (removed.length > 5 ? `, and ${removed.length - 5} more` : '');
  process.stderr.write(`litserve: removed ${removed.length} entr${removed.length === 1 ? 'y' : 'ies'} the executable does not carry from ${root} (${named})\n`);
}

/** Where the carried files go, what they are, and the variables the command runs with besides the user's. */
type Cache = { dir: string; manifest: CarriedManifest; env: Record<string, string> };

/**
 * The cache, and the variables the command gets: the cache directory, and the carried copy of each setting
 * whose default is a file of the checkout (flags and the user's variables still win). Known before anything
 * is written, so that the start is decided, and the settings parsed, once, with the environment the command
 * and its workers and children get. An Error (no cache directory, a damaged manifest) is said only if a
 * command is to run, as one met writing the files is.
 */
function cacheOf(cacheDirFlag: string | undefined): Cache | Error {
  try {
    const dir = cacheDirFlag ?? (process.env.LITSERVE_CACHE_DIR || defaultCacheDir());
    const manifest = JSON.parse(Buffer.from(asset(MANIFEST_ASSET)).toString('utf8')) as CarriedManifest;
    const tree = carriedTreeOf(dir, manifest);
    const env: Record<string, string> = { LITSERVE_CACHE_DIR: dir };
    for (const [name, file] of Object.entries(CARRIED_DEFAULTS)) env[name] = process.env[name] ?? path.join(tree, file);
    return { dir, manifest, env };
  } catch (error) {
    return error as Error;
  }
}

/**
 * Prints what the arguments alone decide, or answers the command to run and its settings. Before the cache is
 * touched, so that `ssh host litserve --version` by an account whose home is not writable does not fail on
 * writing the libraries, and `--help`, a mistyped --delete-file or eval --qrels answer without writing them all
 * (90 MB) first.
 */
function decide(env: NodeJS.ProcessEnv): Extract<StartDecision, { run: unknown }> | null {
  const decideStart = loadStartDecision(getAsset(START_DECISION_ASSET, 'utf8'));
  const decision = decideStart(process.argv.slice(2), env, true);
  if ('run' in decision) return decision;
  process.exitCode = printDecision(decision);
  return null;
}

async function run(): Promise<void> {
  const script = carriedScriptArgument();
  if (script !== null) {
    process.argv.splice(1, 1);
    await importCarried(script);
    return;
  }
  const cacheDirFlag = takeCacheDirFlag(process.argv);
  if (cacheDirFlag === undefined && isBlank(process.env.LITSERVE_CACHE_DIR ?? '')) refuseBlankCacheDir();
  const cache = cacheOf(cacheDirFlag);
  const decision = decide(cache instanceof Error ? process.env : { ...process.env, ...cache.env });
  if (decision === null) return;
  // A signal met by ingest while the carried files are checked or written is said, not silent.
  if (decision.run === 'ingest') watchIngestStart();
  try {
    if (cache instanceof Error) throw cache;
    const noexec = noexecMountOf(cache.dir);
    if (noexec !== null) {
      throw new Error(
        `the cache directory ${cache.dir} is on a file system mounted noexec (${noexec}), where the carried libraries cannot be loaded: ` +
          'point --cache-dir / LITSERVE_CACHE_DIR at a directory on another file system',
      );
    }
    const { root, written, removed } = extractCarried(cache.dir, cache.manifest, asset);
    if (removed.length > 0) reportRemoved(root, removed);
    if (written.length > 0) {
      process.stderr.write(`litserve: wrote ${written.length} carried file(s) to ${root}\n`);
      reportOtherBuilds(root);
    }
    Object.assign(process.env, cache.env, { [CARRIED_ROOT_ENV]: root });
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exit(1);
  }
  // Inlined by the bundle (no import() of its own: see carried.ts); loaded only now, as from main.ts.
  const { runCommand } = await import('../run-command.js');
  await runCommand(decision.run, decision.config, true);
}

void run();
