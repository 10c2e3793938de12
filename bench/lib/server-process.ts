/**
 * The server process that benchmarks start through test/reliability/server-process.ts: `.test-dist/main.js serve`,
 * src/ compiled as `npm run build` compiles it, which otherwise only the tests' global setup compiles.
 */
import path from 'node:path';
import { COMPILED_DIR, compileServerIfStale } from '../../test/compiled-server.js';

/** Compiles src/ into `.test-dist/` when it is missing or older than a source: a fresh checkout could not start the server, and an old tree would measure old code. */
export async function compileServerProcess(): Promise<void> {
  const millis = await compileServerIfStale();
  if (millis !== null) process.stderr.write(`compiled src/ to ${path.relative(process.cwd(), COMPILED_DIR)}/ for the server process in ${millis} ms\n`);
}
