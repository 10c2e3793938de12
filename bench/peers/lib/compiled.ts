/**
 * The server's modules as `npm start` runs them: compiled to dist/ by
 * scripts/build-dist.mjs. Engine peers load these rather than src/ through
 * tsx, so they measure what users run (bench:peers builds dist/ first).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const DIST_DIR = path.resolve('dist');

/** Imports dist/<modulePath> (a path under src/ with .js for .ts), typed as its source module. */
export async function compiledModule<T>(modulePath: string): Promise<T> {
  return (await import(pathToFileURL(path.join(DIST_DIR, modulePath)).href)) as T;
}
