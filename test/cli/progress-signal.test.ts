/**
 * A job stopped by a signal while its progress bar shows gives the terminal back as it found it: the bar
 * hides the cursor and turns line wrapping off, and Ctrl-C on an ingest had left them so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SHOW_CURSOR = '\x1b[?25h';
const HIDE_CURSOR = '\x1b[?25l';
const LINE_WRAP_ON = '\x1b[?7h';

// A job that shows the bar on its terminal, then is interrupted the way Ctrl-C does.
const INTERRUPTED_JOB = `
  import { createProgress } from './src/progress.ts';
  const progress = createProgress('ingest');
  progress.update(1, 10);
  setTimeout(() => process.kill(process.pid, process.argv.at(-1)), 100);
  setTimeout(() => {}, 10_000);
`;

const script = '/usr/bin/script';
if (!existsSync(script)) console.warn(`skipping the progress-bar signal test: ${script} (bsdutils), which gives a job a terminal, is absent`);

describe.skipIf(!existsSync(script))('the progress bar on a terminal', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])('%s: shows the cursor and wraps lines again, then ends as the signal would', (signal, status) => {
    const command = `${process.execPath} --import tsx --input-type=module -e "${INTERRUPTED_JOB.replace(/"/g, '\\"')}" -- ${signal}; echo "exit=$?"`;
    const result = spawnSync(script, ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 20_000 });
    expect(result.stdout).toContain(HIDE_CURSOR);
    expect(result.stdout.slice(result.stdout.lastIndexOf(HIDE_CURSOR))).toContain(SHOW_CURSOR);
    expect(result.stdout).toContain(LINE_WRAP_ON);
    expect(result.stdout).toContain(`exit=${status}`);
  });
});
