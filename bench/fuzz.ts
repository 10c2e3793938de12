/**
 * The long fuzzing run: the same properties as `test/fuzz/` (which CI runs
 * with a few dozen cases per route), with many more cases, and a report of
 * the cases tried and the statuses seen per route in bench/results/fuzz.md.
 *
 *   npm run bench:fuzz                 # 1000 cases per route
 *   FUZZ_RUNS=5000 npm run bench:fuzz
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { count } from './lib/settings.js';

const runs = count('FUZZ_RUNS', 1000);
const report = path.resolve('bench', 'results', 'fuzz.md');
process.stderr.write(`fuzzing every route with ${runs} cases each; report: ${report}\n`);
const started = Date.now();
const result = spawnSync(process.execPath, [path.resolve('node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/fuzz/'], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: String(runs), FUZZ_REPORT: report },
});
process.stderr.write(`fuzzing took ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
if (existsSync(report)) process.stdout.write(readFileSync(report, 'utf8'));
process.exit(result.status ?? 1);
