/**
 * `ingest` over input folders as a user runs it: a subfolder it may not read is reported and skipped (the
 * run goes on), and the summary counts the hidden entries it did not read; warnings have lines of their own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../search/helpers.js';
import { ingestCli } from './ingest-command.js';

const line = (id: string) => JSON.stringify({ article_id: id, title: 'T', paragraphs: [{ section: 'S', text: 'Place cells.' }] });

/**
 * Permissions do not stop root, so as root the command runs as `nobody` (through runuser) to meet a folder it
 * may not read; without runuser, or when nobody cannot read the checkout, as root the test cannot lock a
 * folder and is skipped.
 */
const asRoot = process.getuid?.() === 0;
const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find((file) => existsSync(file));
/** `nobody` must reach the checkout to run it: a clone in a folder of mode 0700 (mktemp -d) keeps it out. */
const nobodyReachesCheckout = () => spawnSync(RUNUSER!, ['-u', 'nobody', '--', 'test', '-r', path.resolve('src/main.ts')]).status === 0;
const whyNot = !asRoot ? null : RUNUSER === undefined ? 'run as root without runuser' : !nobodyReachesCheckout() ? 'run as root, and nobody cannot read this checkout' : null;
const canLock = whyNot === null;

function ingestCliAsUnprivileged(...args: string[]): { code: number | null; stderr: string } {
  if (!asRoot) return ingestCli(...args);
  const result = spawnSync(RUNUSER!, ['-u', 'nobody', '--', process.execPath, '--import', 'tsx', 'src/main.ts', 'ingest', ...args], { encoding: 'utf8' });
  return { code: result.status, stderr: result.stderr };
}

describe('npm run ingest over input folders', () => {
  it.skipIf(!canLock)(
    `reports a subfolder it may not read and indexes the rest${canLock ? '' : ` (SKIPPED: ${whyNot}, whom no folder permission stops; test/corpus/unreadable-subfolder.test.ts covers the walk)`}`,
    async () => {
      const { dir, cleanup } = await tempDir();
      try {
        // Open to `nobody` when run as root; the locked folder is open to no one but root.
        await chmod(dir, 0o777);
        const papers = path.join(dir, 'papers');
        const locked = path.join(papers, 'locked');
        await mkdir(locked, { recursive: true });
        await writeFile(path.join(papers, 'a.jsonl'), line('a1'));
        await writeFile(path.join(locked, 'b.jsonl'), line('b1'));
        await chmod(papers, 0o777);
        await chmod(locked, 0o000);
        const { code, stderr } = ingestCliAsUnprivileged('--input', papers, '--index', path.join(dir, 'index'), '--quiet');
        await chmod(locked, 0o755);
        expect(stderr).toContain(`skipped ${locked}: cannot be read (EACCES: permission denied, scandir '${locked}'): skipped\n`);
        expect(stderr).toContain('ingest: files: 1 read, 1 unreadable folder skipped; records: read 1, indexed 1');
        expect(code).toBe(0);
      } finally {
        await cleanup();
      }
    },
  );

  it('reports a file it cannot read once, however many of its inputs lead to it', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const papers = path.join(dir, 'papers');
      await mkdir(papers);
      await writeFile(path.join(papers, 'a.jsonl'), line('a1'));
      const readme = path.join(papers, 'README.txt');
      await writeFile(readme, 'Papers of the lab.');
      const { code, stderr } = ingestCli('--input', papers, readme, readme, '--index', path.join(dir, 'index'), '--quiet');
      expect(code).toBe(0);
      expect(stderr.split('\n').filter((text) => text.startsWith('skipped '))).toEqual([expect.stringMatching(`^skipped ${readme}: Cannot tell the format`)]);
      expect(stderr).toContain('ingest: files: 1 read, 1 skipped (not recognised or unreadable); records: read 1, indexed 1');
    } finally {
      await cleanup();
    }
  });

  it('counts hidden entries in the summary, and gives each warning a line', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const papers = path.join(dir, 'papers');
      await mkdir(path.join(papers, '.git'), { recursive: true });
      await writeFile(path.join(papers, '.git', 'config'), '[core]');
      await writeFile(path.join(papers, '.DS_Store'), 'x');
      await writeFile(path.join(papers, 'a.jsonl'), `${line('a1')}\n${line('a1')}\n`);
      const { code, stderr } = ingestCli('--input', papers, '--index', path.join(dir, 'index'), '--quiet');
      expect(code).toBe(0);
      expect(stderr).toContain(`warning: article_id "a1" read again in this run at ${path.join(papers, 'a.jsonl')}:2 (first at ${path.join(papers, 'a.jsonl')}:1): the later one is kept\n`);
      expect(stderr).toContain('ingest: files: 1 read, 2 hidden entries skipped; records: read 2, indexed 2 (replaced 1), skipped 0; added 1, replaced 1 (1 id(s) read more than once in this run), deleted 0');
    } finally {
      await cleanup();
    }
  });
});
