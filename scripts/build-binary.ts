/**
 * `npm run build:binary`: one executable file, dist/litserve (Linux x64),
 * that needs no Node, no node_modules and no network on the target machine.
 *
 * Node 20's single-executable-application support: esbuild bundles the
 * server (entry src/runtime/binary-main.ts) into one CommonJS file, which
 * `node --experimental-sea-config` turns into a blob that postject injects
 * into a copy of this node binary. Everything else travels as node:sea
 * assets and is written to a cache on first start (src/runtime/extract.ts):
 * - native addons and their libraries (lmdb, msgpackr-extract,
 *   onnxruntime-node with libonnxruntime), found while bundling;
 * - packages kept as files: piscina (its workers start from its own
 *   worker.js) and node-llama-cpp with its CPU binaries (see carried.ts);
 * - the search worker, bundled like the server;
 * - CARRIED_FOLDERS, listed below: the demo corpus, and the files of src/ that
 *   are not TypeScript (the web page's static files, JSON).
 *
 * The main script first evaluates a bundle of its own of src/start-decision.ts
 * (see src/runtime/start-decision-bundle.ts), so --version, --help, option
 * errors and missing files write nothing.
 *
 *   npm run build:binary            -> dist/litserve
 *
 * Intermediate files go to dist/.binary, emptied at the start and removed at
 * the end of every build, failed or not: nothing reads them afterwards. The
 * executable is written as dist/.litserve.partial and renamed to dist/litserve
 * when complete (scripts/binary/write-in-place.ts).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { describeFile, filesUnder, packageClosure } from './binary/carried-files.js';
import { writeInPlace } from './binary/write-in-place.js';
import { carriedPackages, nativeAddons, preferRequireBuilds, sourceUrlsInTree, type NativeFiles } from './binary/esbuild-plugins.js';
import { MANIFEST_ASSET, type CarriedManifest } from '../src/runtime/extract.js';
import { START_DECISION_ASSET } from '../src/runtime/start-decision-bundle.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT = path.join(ROOT, 'dist', 'litserve');
const STAGING = path.join(ROOT, 'dist', '.binary');
const CARRIED_MODULE = path.join(ROOT, 'src', 'runtime', 'carried.ts');
/**
 * Folders of the checkout the executable carries as they are (see CARRIED_DEFAULTS
 * in binary-main.ts). From src/, every file that is not TypeScript (static files,
 * JSON), found by our modules relative to their import.meta.url (sourceUrlsInTree).
 */
const CARRIED_FOLDERS = ['data/demo', 'src'];
const isCarriedFromFolder = (file: string) => !(file.startsWith('src/') && file.endsWith('.ts'));
/** Packages carried as file trees, with all they depend on. */
const FILE_PACKAGES = ['piscina', 'node-llama-cpp'];
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/**
 * Printed, several times, by LIEF, the ELF library inside postject, when it rewrites the section table
 * of Node's binary and finds no name string for its note sections. Known and harmless: postject
 * issue #83 and the review of nodejs/node#45038 (which added single executables) trace it to LIEF's
 * ELF builder, and the executable runs (test/packaging/binary.test.ts). So it is not shown; any other
 * output of postject is.
 */
const POSTJECT_NOTE_WARNING = /^warning: Can't find string offset for section name '\.note[^']*'\n?$/;

/** node-llama-cpp's binaries for other platforms and GPUs, and its llama.cpp sources (only needed to compile). */
const skipPackages = (dir: string) => dir.startsWith('node_modules/@node-llama-cpp/') && dir !== `node_modules/@node-llama-cpp/${process.platform}-${process.arch}`;
const skipFiles = (file: string) => file.startsWith('node_modules/node-llama-cpp/llama/') && /gitRelease\.bundle$|\/llama\.cpp\//.test(file);

async function bundle(entry: string, outfile: string, plugins: esbuild.Plugin[], external: string[]): Promise<void> {
  plugins = [sourceUrlsInTree(ROOT, CARRIED_MODULE), ...plugins, preferRequireBuilds(external)];
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Packages' import.meta (our modules get theirs from sourceUrlsInTree): only on paths the bundle avoids.
    define: { 'import.meta.url': 'undefined' },
    external,
    plugins,
    logLevel: 'warning',
    legalComments: 'none',
  });
}

/** Worker-thread entries (source -> bundled file in the extracted tree; pool.ts and renderer.ts look for these names). */
const WORKER_BUNDLES: Record<string, string> = {
  'src/search/worker.ts': 'search-worker.cjs',
  'src/platform/render-worker.ts': 'render-worker.cjs',
};

/** Runs a step of the build; its error output is shown but for the lines `hidden` matches. */
function run(command: string, args: string[], hidden?: RegExp): void {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: ['ignore', 'inherit', hidden ? 'pipe' : 'inherit'], encoding: 'utf8' });
  if (hidden) process.stderr.write(result.stderr.split(/(?<=\n)/).filter((line) => !hidden.test(line)).join(''));
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
}

/**
 * src/start-decision.ts alone, for the executable to run before it writes the files it carries: it reaches
 * no package (test/packaging/start-decision-bundle.test.ts), so nothing that would load them.
 */
export async function bundleStartDecision(outfile: string): Promise<void> {
  await bundle('src/start-decision.ts', outfile, [], ['node-llama-cpp']);
}

export async function buildBinary(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error('the single executable is built for Linux x64 only');
  rmSync(STAGING, { recursive: true, force: true });
  mkdirSync(STAGING, { recursive: true });
  try {
    return await buildFromStaging();
  } finally {
    rmSync(STAGING, { recursive: true, force: true });
  }
}

async function buildFromStaging(): Promise<string> {
  const natives: NativeFiles = new Set();
  const mainBundle = path.join(STAGING, 'main.cjs');
  await bundle('src/runtime/binary-main.ts', mainBundle, [nativeAddons(ROOT, CARRIED_MODULE, natives), carriedPackages(['piscina'], CARRIED_MODULE)], ['node-llama-cpp']);
  // Workers run from their extracted files, so piscina resolves from the tree's node_modules as usual.
  for (const [entry, output] of Object.entries(WORKER_BUNDLES)) {
    await bundle(entry, path.join(STAGING, output), [nativeAddons(ROOT, CARRIED_MODULE, natives)], ['piscina', 'node-llama-cpp']);
  }

  const treeOptions = { skipPackages, skipFiles };
  const checkoutFiles = [
    ...natives,
    ...packageClosure(ROOT, FILE_PACKAGES, treeOptions).flatMap((dir) => filesUnder(ROOT, dir, treeOptions)),
    ...CARRIED_FOLDERS.flatMap((dir) => filesUnder(ROOT, dir)).filter(isCarriedFromFolder),
  ];
  // The main script is compiled with a V8 code cache, which leaves it without import(); ES modules are imported through this file.
  writeFileSync(path.join(STAGING, 'dynamic-import.cjs'), 'module.exports = (url) => import(url);\n');
  // The tree's own package scope. Without it Node took the nearest package.json above the cache directory for the
  // tree's: its "name" and "exports" answered require('piscina') (a self-reference: a file planted above a cache in
  // /tmp ran), and its "type", or a syntax error in it, decided how the tree's files load.
  writeFileSync(path.join(STAGING, 'package.json'), `${JSON.stringify({ name: 'litserve-carried-files', private: true, type: 'commonjs' })}\n`);
  const builtFiles = [...Object.values(WORKER_BUNDLES), 'dynamic-import.cjs', 'package.json'];
  const assets: Record<string, string> = {};
  for (const file of checkoutFiles) assets[file] = path.join(ROOT, file);
  for (const file of builtFiles) assets[file] = path.join(STAGING, file);
  const manifest: CarriedManifest = {
    files: [...checkoutFiles.map((file) => describeFile(ROOT, file)), ...builtFiles.map((file) => describeFile(STAGING, file))],
  };
  const manifestFile = path.join(STAGING, MANIFEST_ASSET);
  writeFileSync(manifestFile, JSON.stringify(manifest));
  assets[MANIFEST_ASSET] = manifestFile;
  // An asset, not a carried file: it runs before any file is written.
  assets[START_DECISION_ASSET] = path.join(STAGING, START_DECISION_ASSET);
  await bundleStartDecision(assets[START_DECISION_ASSET]);

  const blob = path.join(STAGING, 'sea-prep.blob');
  const seaConfig = path.join(STAGING, 'sea-config.json');
  writeFileSync(seaConfig, JSON.stringify({ main: mainBundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets }));
  run(process.execPath, ['--experimental-sea-config', seaConfig]);
  // Renamed into place once postject is done: a failed or interrupted build leaves the last good dist/litserve, or none.
  writeInPlace(OUTPUT, (partial) => {
    copyFileSync(process.execPath, partial);
    run(process.execPath, [path.join(ROOT, 'node_modules/postject/dist/cli.js'), partial, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE], POSTJECT_NOTE_WARNING);
  });
  const carriedBytes = manifest.files.reduce((sum, f) => sum + f.size, 0);
  process.stderr.write(
    `built ${path.relative(ROOT, OUTPUT)}: ${(statSync(OUTPUT).size / 2 ** 20).toFixed(0)} MiB ` +
      `(${manifest.files.length} carried files, ${(carriedBytes / 2 ** 20).toFixed(0)} MiB)\n`,
  );
  return OUTPUT;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildBinary();
}
