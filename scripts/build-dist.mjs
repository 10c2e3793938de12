/**
 * `npm run build`: compiles the server to plain JavaScript in dist/, so that
 * `npm start` runs without TypeScript at run time.
 *
 * Plain JavaScript (not TypeScript like the other scripts) because
 * scripts/start.mjs runs it before anything can load TypeScript.
 * esbuild bundles our own modules (it also resolves the `.ts` import
 * specifiers some folders use) and leaves every npm package an ordinary
 * import from node_modules. The search worker is a second entry: pool.ts
 * finds it beside the main file. Type checking stays with `npm test` (tsc).
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
/** Written last: its time is when dist/ was known to match the sources. */
const STAMP = path.join(DIST, '.built');
/** What the compiled server is made of, besides node_modules. */
const INPUTS = ['src', 'package.json', 'package-lock.json', 'scripts/build-dist.mjs'];

export async function buildDist() {
  const esbuild = await import('esbuild');
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'src/main.ts', worker: 'src/search/worker.ts' },
    outdir: DIST,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // esbuild answers from a helper process; end it, or it would live as long as the server.
  await esbuild.stop();
  await writeFile(STAMP, `${new Date().toISOString()}\n`);
}

async function newestChange(file) {
  const info = await stat(file);
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(file);
  const times = await Promise.all(entries.map((entry) => newestChange(path.join(file, entry))));
  return Math.max(info.mtimeMs, ...times);
}

/** True when dist/ was built after the last change to any of its inputs. */
export async function distIsCurrent() {
  const built = await stat(STAMP).then((s) => s.mtimeMs, () => null);
  if (built === null) return false;
  const changes = await Promise.all(INPUTS.map((input) => newestChange(path.join(ROOT, input)).catch(() => Infinity)));
  return Math.max(...changes) <= built;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await buildDist();
  process.stderr.write(`built dist/main.js and dist/worker.js in ${Date.now() - started} ms\n`);
}
