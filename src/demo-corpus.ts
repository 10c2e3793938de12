/**
 * The demo corpus the default index is built from. Its default is a path of the checkout
 * (`data/demo/articles.jsonl`), which a server started from another directory did not find.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { carriedRoot } from './runtime/carried.js';

/**
 * `configured` as given when it is absolute or found from `cwd`, else the checkout's file of that
 * relative path when there is one. The executable sets an absolute path to the copy it carries
 * (and has no checkout to look in).
 */
export function demoCorpusPath(configured: string, cwd = process.cwd()): string {
  if (path.isAbsolute(configured) || existsSync(path.resolve(cwd, configured)) || carriedRoot() !== null) return configured;
  // src/ and dist/ both lie one level below the checkout's root.
  const inCheckout = fileURLToPath(new URL(`../${configured}`, import.meta.url));
  return existsSync(inCheckout) ? inCheckout : configured;
}
