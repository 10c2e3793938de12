/**
 * `npm start` runs the compiled server in dist/ and compiles it first when a
 * source is newer than the last build (so `npm ci && npm start` works), and
 * only then.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { utimesSync } from 'node:fs';

const start = (...args: string[]) => spawnSync(process.execPath, ['scripts/start.mjs', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('npm start', () => {
  it('compiles dist/ when a source changed since the last build, and runs it without compiling otherwise', () => {
    // Mark a source as just changed (its content stays the same).
    const now = new Date();
    utimesSync('src/main.ts', now, now);
    const stale = start('serve', '--version');
    expect(stale.status).toBe(0);
    expect(stale.stderr).toContain('compiling the server');
    expect(stale.stdout).toMatch(/^litserve \d+\.\d+\.\d+ \(Node /);

    const current = start('--version');
    expect(current.status).toBe(0);
    expect(current.stderr).not.toContain('compiling');
    expect(current.stdout).toBe(stale.stdout);
  });

  it('runs the commands of the compiled server with their own flags', () => {
    const help = start('serve', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: npm start -- [options]');
    const ingestHelp = start('ingest', '--help');
    expect(ingestHelp.status).toBe(0);
    expect(ingestHelp.stdout).toContain('usage: npm run ingest');
    const ingest = start('ingest');
    expect(ingest.status).toBe(2);
    expect(ingest.stderr).toContain('ingest needs --index; see --help');
  });
});
