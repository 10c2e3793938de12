/**
 * The server's modules as `npm start` runs them: compiled to dist/ by
 * scripts/build-dist.mjs. Benchmarks of the engine load these rather than
 * src/ through tsx, so they measure what users run: tsx's loader in the
 * search worker threads cost the pool a third of its throughput.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Compiles src/ to dist/ (a few seconds), so that dist/ matches this checkout. */
export function buildCompiled(): void {
  execFileSync(process.execPath, [path.resolve('scripts', 'build-dist.mjs')], { stdio: 'inherit' });
}

/** Imports dist/<modulePath> (a path under src/, .js for .ts), typed as its source module. */
export async function compiledModule<T>(modulePath: string): Promise<T> {
  return (await import(pathToFileURL(path.resolve('dist', modulePath)).href)) as T;
}
