/**
 * `npm run build`: compiles the server to plain JavaScript in dist/, so that
 * `npm start` runs without TypeScript at run time.
 *
 * Plain JavaScript (not TypeScript like the other scripts) because
 * scripts/start.mjs runs it before anything can load TypeScript.
 * dist/ mirrors src/ file for file: each module is compiled on its own by
 * esbuild, its relative imports kept (`./x.ts` specifiers, which some folders
 * use, become `./x.js`), and every other file of src/ (JSON, the web page's
 * files) is copied beside it. So whatever a module finds relative to
 * import.meta.url (the search worker, bundled contexts, static files) is at
 * the same place in dist/ as in src/. npm packages stay node_modules imports.
 * Type checking stays with `npm test` (tsc).
 *
 * The tests compile the same way into a directory of their own (test/compiled-server.ts), beside src/ as dist/ is,
 * so that test/cli/start.test.ts may rebuild dist/ while other test files run the compiled server.
 */
import { copyFile, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
const SRC = path.join(ROOT, 'src');
/** Written last in the output directory: its time is when the output was known to match the sources. */
const STAMP = '.built';
/** What the compiled server is made of, besides node_modules. */
const INPUTS = ['src', 'package.json', 'package-lock.json', 'scripts/build-dist.mjs'];
/** What else lives in dist/ (npm run build:binary) and survives a rebuild. */
const KEEP = new Set(['litserve', '.binary']);

async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? e.path, e.name));
}

/** Relative imports stay imports of the compiled sibling; JSON modules are inlined (their import attributes would be lost). */
const keepRelativeImports = {
  name: 'keep-relative-imports',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) =>
      args.kind === 'entry-point' || args.path.endsWith('.json') ? undefined : { path: args.path.replace(/\.ts$/, '.js'), external: true },
    );
  },
};

/** Compiles src/ into `outDir`, which must lie directly under the checkout, as src/ does (modules find files relative to themselves). */
export async function buildDist(outDir = DIST) {
  const esbuild = await import('esbuild');
  await mkdir(outDir, { recursive: true });
  for (const entry of await readdir(outDir)) if (!KEEP.has(entry)) await rm(path.join(outDir, entry), { recursive: true, force: true });
  const sources = await filesUnder(SRC);
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: sources.filter((file) => file.endsWith('.ts')),
    outbase: SRC,
    outdir: outDir,
    bundle: true,
    packages: 'external',
    plugins: [keepRelativeImports],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // esbuild answers from a helper process; end it, or it would live as long as the server.
  await esbuild.stop();
  for (const file of sources.filter((f) => !f.endsWith('.ts'))) {
    const target = path.join(outDir, path.relative(SRC, file));
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(file, target);
  }
  await writeFile(path.join(outDir, STAMP), `${new Date().toISOString()}\n`);
}

async function newestChange(file) {
  const info = await stat(file);
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(file);
  const times = await Promise.all(entries.map((entry) => newestChange(path.join(file, entry))));
  return Math.max(info.mtimeMs, ...times);
}

/** True when `outDir` was built after the last change to any of its inputs. */
export async function distIsCurrent(outDir = DIST) {
  const built = await stat(path.join(outDir, STAMP)).then((s) => s.mtimeMs, () => null);
  if (built === null) return false;
  const changes = await Promise.all(INPUTS.map((input) => newestChange(path.join(ROOT, input)).catch(() => Infinity)));
  return Math.max(...changes) <= built;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await buildDist();
  process.stderr.write(`compiled src/ to dist/ in ${Date.now() - started} ms\n`);
}
