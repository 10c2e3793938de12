/**
 * `npm run bench:peers` without bench/peers/install.sh's packages: the chart renderer is loaded before anything
 * is measured, so the run stops in seconds with the install hint. It had measured for half an hour at 1M
 * paragraphs and then failed writing its report, its measurements lost.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const installed = existsSync('bench/peers/node_modules/vega');
if (installed) console.warn('skipping the missing-chart-renderer test: bench/peers/install.sh has installed it here');

describe.skipIf(installed)('a peer comparison without the chart renderer installed', () => {
  it('stops before building or measuring anything, naming the package and the install script', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/peers/run.ts'], {
      env: { ...process.env, PEERS: 'engine', PEERS_CORPORA: 'generated', PEERS_PARAGRAPHS: '1000', PEERS_REPEATS: '1', PEERS_SECONDS: '0.1', PEERS_REPORT: 'chart-renderer-check' },
      encoding: 'utf8',
      timeout: 100_000,
    });
    expect(run.stderr).toMatch(/^bench:peers: cannot load vega \(.*\): run bench\/peers\/install\.sh$/m);
    expect(run.status).toBe(2);
    expect(run.stderr).not.toMatch(/engine: building|p50/);
  }, 120_000);
});
