/** The writing of a segment, `ingest --merge` and the merges of the merge policy show a bar of their own on a terminal, as the reading does. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../search/helpers.js';
import { COMPILED_MAIN } from '../compiled-server.js';

const script = '/usr/bin/script';
if (!existsSync(script)) console.warn(`skipping the merge progress test: ${script} (bsdutils), which gives a job a terminal, is absent`);

const line = (id: string) => JSON.stringify({ article_id: id, title: `Title ${id}`, paragraphs: [{ section: 'Results', text: `text of ${id}` }] });

/** The command's terminal output, run through `script` so that its stderr is a terminal. */
function onTerminal(...args: string[]): string {
  const command = [process.execPath, COMPILED_MAIN, 'ingest', ...args].map((arg) => `'${arg}'`).join(' ');
  const result = spawnSync(script, ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
  expect(result.status).toBe(0);
  return result.stdout;
}

describe.skipIf(!existsSync(script))('merge progress on a terminal', () => {
  it('ingestion shows a write bar, ingest --merge and the merge policy a merge bar, each reaching 100%', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      for (const batch of ['a', 'b', 'c']) {
        const input = path.join(dir, `${batch}.jsonl`);
        await writeFile(input, [1, 2, 3].map((n) => line(`${batch}${n}`)).join('\n'));
        const ingested = onTerminal('--input', input, '--index', indexDir, '--merge-factor', '0');
        // Percentage only: the writer's steps are no unit a user knows.
        expect(ingested).toMatch(/write \[[^\]]*\] 100% \| ETA/);
        expect(ingested).not.toContain('merge [');
      }
      const merged = onTerminal('--index', indexDir, '--merge');
      expect(merged).toMatch(/merge \[[^\]]*\] 100% \| ETA/);
      expect(merged).toMatch(/merge: 3 segment\(s\) ->/);
      // The policy: two more segments of the smallest tier, merged by a factor of 2 after this ingestion.
      const input = path.join(dir, 'd.jsonl');
      await writeFile(input, line('d1'));
      const policy = onTerminal('--input', input, '--index', indexDir, '--merge-factor', '2');
      expect(policy).toMatch(/merge \[[^\]]*\] 100% \| ETA/);
      expect(policy).toMatch(/merge policy: 2 segments ->/);
    } finally {
      await cleanup();
    }
  }, 120_000);
});
