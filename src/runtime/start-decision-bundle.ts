/**
 * The single executable answers --version, --help, option errors and missing files (src/command-files.ts)
 * before it writes the files it carries, with a bundle of src/start-decision.ts it carries as an asset (built by
 * scripts/build-binary.ts) and evaluates here.
 *
 * A bundle of its own, because the server's bundle loads native addons and carried packages while its
 * modules initialise (the settings table imports the search pool, which imports piscina): initialised
 * before the files are written, they fail, or (msgpackr) fall back to plain JavaScript for the rest of
 * the process. In this bundle those packages are stand-ins that fail only when used, and nothing is.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { runInThisContext } from 'node:vm';
import type { ExitDecision, decideStart } from '../start-decision.js';

export const START_DECISION_ASSET = 'start-decision.cjs';

/** Evaluates the bundle (CommonJS source text) and returns its decideStart. */
export function loadStartDecision(code: string): typeof decideStart {
  const module: { exports: { decideStart?: typeof decideStart } } = { exports: {} };
  const wrapper = runInThisContext(`(function (module, exports, require, __filename, __dirname) {${code}\n})`, { filename: START_DECISION_ASSET }) as (
    module: object,
    exports: object,
    require: NodeRequire,
    filename: string,
    dirname: string,
  ) => void;
  // Node's built-in modules are all the bundle requires; it is a file of the executable, as the main script is.
  wrapper(module, module.exports, createRequire(process.execPath), process.execPath, path.dirname(process.execPath));
  if (typeof module.exports.decideStart !== 'function') throw new Error(`the executable is damaged: its ${START_DECISION_ASSET} exports no decideStart`);
  return module.exports.decideStart;
}

/**
 * Writes what a decision to exit prints and returns its exit code: main.ts and the executable's entry print
 * alike. Here, not in src/start-decision.ts, which the entry may not import (it imports the settings table).
 */
export function printDecision(decision: ExitDecision): number {
  if (decision.stdout) process.stdout.write(decision.stdout);
  if (decision.stderr) process.stderr.write(decision.stderr);
  return decision.exit;
}
