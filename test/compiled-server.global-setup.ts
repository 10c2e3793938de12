/**
 * Vitest global setup of every project: compiles src/ into `.test-dist/` (test/compiled-server.ts) when it is
 * missing or older than a source, before any test file starts. The first project's setup compiles (about a second);
 * the others find it current.
 */
import { buildDist, distIsCurrent } from '../scripts/build-dist.mjs';
import { COMPILED_DIR } from './compiled-server.js';

export default async function setup(): Promise<void> {
  if (await distIsCurrent(COMPILED_DIR)) return;
  const started = Date.now();
  await buildDist(COMPILED_DIR);
  console.log(`compiled src/ to ${COMPILED_DIR} for the tests' child processes in ${Date.now() - started} ms`);
}
