/**
 * Where the parts the single executable carries are found at run time.
 *
 * Run from source or from dist/, every package is an ordinary node_modules
 * import and nothing here is used. Inside the executable (dist/litserve), the
 * entry (binary-main.ts) extracts the carried files to a cache directory and
 * publishes it in LITSERVE_CARRIED_ROOT before the server's modules load; the
 * bundle's stand-ins for native addons and for the packages kept as files
 * (piscina, node-llama-cpp) then load them from there. The variable is
 * inherited by worker threads and by child processes node-llama-cpp forks.
 */
import { isSea } from 'node:sea';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const CARRIED_ROOT_ENV = 'LITSERVE_CARRIED_ROOT';

/** The extracted tree of this executable, or null when running from source or dist/. */
export function carriedRoot(): string | null {
  return isSea() ? (process.env[CARRIED_ROOT_ENV] ?? null) : null;
}

function requiredRoot(): string {
  const root = process.env[CARRIED_ROOT_ENV];
  if (!root) throw new Error(`${CARRIED_ROOT_ENV} is unset: carried files are only available inside the litserve executable`);
  return root;
}

/** A carried file by its path in the checkout (`data/demo/articles.jsonl`), or null outside the executable. */
export function carriedFile(relativePath: string): string | null {
  const root = carriedRoot();
  return root === null ? null : path.join(root, relativePath);
}

/** The URL a module of src/ has in the extracted tree (the executable's stand-in for its import.meta.url). */
export function carriedUrl(relativePath: string): string {
  return pathToFileURL(path.join(requiredRoot(), relativePath)).href;
}

/** Loads a native addon from the extracted tree; its companion libraries sit beside it (RUNPATH $ORIGIN). */
export function loadCarriedAddon(relativePath: string): unknown {
  const addon = { exports: {} };
  process.dlopen(addon, path.join(requiredRoot(), relativePath));
  return addon.exports;
}

/** Requires a CommonJS package kept as files in the extracted tree (its own relative files must exist on disk). */
export function requireCarried(name: string): unknown {
  return createRequire(path.join(requiredRoot(), 'package.json'))(name);
}

/**
 * node-llama-cpp: an ES module with top-level await that finds its binaries,
 * its version and its binary self-test relative to its own files, so the
 * executable carries it as files and imports it from there.
 */
export async function importNodeLlamaCpp(): Promise<typeof import('node-llama-cpp')> {
  const root = carriedRoot();
  if (root === null) return import('node-llama-cpp');
  return importCarried(path.join(root, 'node_modules/node-llama-cpp/dist/index.js')) as Promise<typeof import('node-llama-cpp')>;
}

/**
 * Imports an ES module file of the extracted tree. The executable's main
 * script is compiled with a V8 code cache and has no import() of its own, so
 * a one-line CommonJS file of the tree (dynamic-import.cjs) does it.
 */
export function importCarried(file: string): Promise<unknown> {
  const dynamicImport = requireCarried('./dynamic-import.cjs') as (url: string) => Promise<unknown>;
  return dynamicImport(pathToFileURL(file).href);
}
