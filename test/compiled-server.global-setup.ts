/**
 * Vitest global setup of every project: compiles src/ into `.test-dist/` (test/compiled-server.ts) when it is
 * missing or older than a source, before any test file starts. The first project's setup compiles (about a second);
 * the others find it current.
 */
import { COMPILED_DIR, compileServerIfStale } from './compiled-server.js';

export default async function setup(): Promise<void> {
  const millis = await compileServerIfStale();
  if (millis !== null) console.log(`compiled src/ to ${COMPILED_DIR} for the tests' child processes in ${millis} ms`);
}
