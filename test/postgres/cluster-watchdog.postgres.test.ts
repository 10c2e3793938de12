/**
 * A test run killed midway takes its throw-away cluster with it, however it dies: its teardown never
 * runs, and the global setup's cluster (`postgres -D /tmp/litserve-pg-*`) had stayed running, with its
 * directory, after every vitest run stopped by a signal.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { postgresRunner, postgresUnavailable, stopAndRemove } from './cluster.js';
import { until } from '../until.js';

// The `postgresql` project's global setup in a run of its own, which prints its cluster's URL and waits to be killed.
const RUN_WITH_CLUSTER = `
  import setup from './test/postgres/global-setup.ts';
  setup({ provide: (key, url) => console.log(url) });
  setInterval(() => {}, 60_000);
`;

/** Whether process `pid` runs: one that has exited but that no one has reaped yet (a zombie) does not. */
function running(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
  } catch {
    return false;
  }
}

describe.skipIf(postgresUnavailable() !== null)('the throw-away cluster of a killed test run', () => {
  it('is stopped and its directory removed once the run that started it is SIGKILLed', async () => {
    const run = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', RUN_WITH_CLUSTER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: run.stdout }).once('line', resolve);
      run.once('exit', (code) => reject(new Error(`the run ended (${code}) before its cluster was up`)));
    });
    const dir = new URL(url).searchParams.get('host')!;
    const data = path.join(dir, 'data');
    const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    try {
      expect(running(postmaster)).toBe(true);
      run.kill('SIGKILL');
      await until(() => !running(postmaster) && !existsSync(dir));
    } finally {
      run.kill('SIGKILL');
      // What the watchdog should have done, so that a failure here leaves no cluster behind either.
      stopAndRemove(postgresRunner(), data, dir)();
    }
  });
});
