/** `npm run bench:fuzz`: its count of cases is checked before any work, and its report gives no verdict on nothing tried. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { routeReport } from '../fuzz/route-report.js';

const FUZZ_SCRIPT = fileURLToPath(new URL('../../bench/fuzz.ts', import.meta.url));
// An empty working directory: whatever the script would start or write there (the fuzzing run, its report) cannot happen.
const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'bench-fuzz-'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

function fuzzWith(runs: string) {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return spawnSync(process.execPath, ['--import', tsx, FUZZ_SCRIPT], {
    cwd: elsewhere, encoding: 'utf8', timeout: 60_000, env: { ...process.env, FUZZ_RUNS: runs },
  });
}

describe('bench:fuzz', () => {
  it.each(['abc', '0', '2.5'])('refuses FUZZ_RUNS=%s before any work, with exit status 2', (runs) => {
    const run = fuzzWith(runs);
    expect(run.stderr).toContain(`fuzz.ts: FUZZ_RUNS must be a positive whole number, got "${runs}"`);
    expect(run.stderr).not.toContain('fuzzing every route');
    expect(run.status).toBe(2);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('gives no verdict when no request was made, and a failure whatever was tried', () => {
    expect(routeReport(1, new Map(), true)).toContain('**No verdict: no request was made.**');
    expect(routeReport(1, new Map(), true)).not.toMatch(/no 5xx/);
    expect(routeReport(1, new Map(), false)).toContain('the property FAILED');
    expect(routeReport(1, new Map([['GET /healthz', new Map([[200, 3]])]]), true)).toMatch(/3 requests in all\.\nVerdict: every answer was a documented status/);
  });
});
