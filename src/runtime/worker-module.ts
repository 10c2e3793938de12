/**
 * Which file a worker thread runs: the one the executable carries; else the module beside its pool, compiled (.js)
 * when the pool is, or its TypeScript source when the server runs from source (the pool then loads it through tsx).
 *
 * LITSERVE_COMPILED_SRC, when set, names a copy of src/ compiled as `npm run build` lays out dist/. A server run from
 * source then starts its workers from that copy, without tsx: a render thread through tsx costs about 0.6 s of CPU to
 * start against 0.2 s compiled, and the test suite, which runs from source, starts a few hundred. The tests set it
 * (test/compiled-server.ts); nothing else needs to.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { carriedFile } from './carried.js';

export const COMPILED_SRC_ENV = 'LITSERVE_COMPILED_SRC';

/** The file of worker module `name` (no extension), beside the pool module at `poolUrl`; `carried` is its name in the executable. */
export function workerModule(name: string, poolUrl: string, carried: string): string {
  const inExecutable = carriedFile(carried);
  if (inExecutable !== null) return inExecutable;
  const fromSource = poolUrl.endsWith('.ts');
  const beside = fileURLToPath(new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, poolUrl));
  const compiled = fromSource ? process.env[COMPILED_SRC_ENV] : undefined;
  if (!compiled) return beside;
  const src = fileURLToPath(new URL('../', import.meta.url));
  return path.join(compiled, path.relative(src, beside)).replace(/\.ts$/, '.js');
}

/**
 * The execArgv of a Piscina pool's threads running `workerFile`. Piscina loads a worker with require() first and
 * import() if that fails; on Node 20.19+ require() of an ES module can meet an import() of the same module in that
 * thread still linking, and Node then aborts the whole process (`FATAL ERROR: v8::Module::IsGraphAsync must be used
 * on an instantiated module`, from Piscina's require: seen in a fresh clone of the test suite, in the brute-force
 * property test's search pool, where an earlier clone had lost its worker without a message). With require() of ES modules off in the thread, Piscina's require() of
 * a compiled (.js) worker fails at once and the worker is imported. Sources (.ts) load through tsx; the
 * executable's workers (.cjs) are CommonJS.
 */
export function workerExecArgv(workerFile: string): string[] {
  if (workerFile.endsWith('.ts')) return ['--import', 'tsx'];
  if (workerFile.endsWith('.js') && process.allowedNodeEnvironmentFlags.has(NO_REQUIRE_ESM)) return [NO_REQUIRE_ESM];
  return [];
}

const NO_REQUIRE_ESM = '--no-experimental-require-module';
