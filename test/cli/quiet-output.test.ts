/** Off a terminal, progress is printed once per step, not every few seconds (issue 12 item 14). */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createProgress } from '../../src/progress.js';
import { tempDir } from '../search/helpers.js';
import { COMPILED_MAIN } from '../compiled-server.js';

function recorder() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

describe('progress off a terminal', () => {
  it('a short ingest prints only its summary line', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const input = path.join(dir, 'in.jsonl');
      const record = (id: number) => JSON.stringify({ article_id: `a${id}`, title: `T${id}`, paragraphs: [{ section: 'Results', text: `text ${id}` }] });
      await writeFile(input, Array.from({ length: 50 }, (_, i) => record(i)).join('\n'));
      const result = spawnSync(process.execPath, [COMPILED_MAIN, 'ingest', '--input', input, '--index', path.join(dir, 'index')], { encoding: 'utf8' });
      expect(result.status).toBe(0);
      const lines = result.stderr.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^ingest: files: 1 read; records: read 50, indexed 50/);
    } finally {
      await cleanup();
    }
  }, 30_000);

  it('a long step prints each quarter once', () => {
    const { lines, stream } = recorder();
    let now = 0;
    const progress = createProgress('build', 'items', { stream, now: () => now });
    for (let done = 0; done <= 1000; done += 10) {
      now += 500; // 50 s in all
      progress.update(done, 1000);
    }
    progress.stop();
    // 25% is reached at 12.5 s, after the quiet first 10 s.
    expect(lines).toEqual(['build: 25% (250 / 1000)', 'build: 50% (500 / 1000)', 'build: 75% (750 / 1000)']);
  });

  it('a step counted in steps (a writer\'s or a merge\'s units, which mean nothing to a user) prints its percentage only', () => {
    const { lines, stream } = recorder();
    let now = 0;
    const progress = createProgress('write', 'steps', { stream, now: () => now });
    for (let done = 0; done <= 1000; done += 10) {
      now += 500;
      progress.update(done * 126_214, 1000 * 126_214);
    }
    expect(lines).toEqual(['write: 25%', 'write: 50%', 'write: 75%']);
  });

  it('a step that crossed quarters while quiet prints once where it stands, not the quarter crossed', () => {
    const { lines, stream } = recorder();
    let now = 0;
    const progress = createProgress('build', 'items', { stream, now: () => now });
    progress.update(600, 1000);
    now = 11_000;
    progress.update(610, 1000);
    progress.update(620, 1000);
    progress.update(1000, 1000);
    expect(lines).toEqual(['build: 61% (610 / 1000)', 'build: 100% (1000 / 1000)']);
  });
});
