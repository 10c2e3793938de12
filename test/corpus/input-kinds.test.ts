/**
 * What may be read as input: links inside an input directory stay inside it, and nothing but
 * regular files is read (a pipe, a device, a pseudo-file of /proc or /sys), each refused with a
 * message that names it, before the index is touched.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants, open, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingest } from '../../src/corpus/ingest.js';
import { detectFormat, expandInputs } from '../../src/corpus/readers/index.js';
import { fixtureDir, writeFixture } from './fixtures.js';

const ARTICLE_LINE = JSON.stringify({ article_id: 'a', title: 'T', paragraphs: [{ section: 'S', text: 'Place cells.' }] });
const ON_LINUX = process.platform === 'linux';

async function expand(paths: string[]): Promise<{ files: string[]; reported: string[] }> {
  const files: string[] = [];
  const reported: string[] = [];
  for await (const file of expandInputs(paths, (file, message) => reported.push(`${file}: ${message}`))) files.push(file);
  return { files, reported };
}

/**
 * A named pipe, held open for reading and writing while `use` runs: opening it to read then never
 * waits for a writer, so a reader that does not refuse it fails (ESPIPE) rather than hangs.
 */
async function withFifo(dir: string, name: string, use: (fifo: string) => Promise<void>): Promise<void> {
  const fifo = path.join(dir, name);
  execFileSync('mkfifo', [fifo]);
  const holder = await open(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  try {
    await holder.write(ARTICLE_LINE + '\n');
    await use(fifo);
  } finally {
    await holder.close();
  }
}

describe('links inside an input directory', () => {
  it('are followed inside the directory and skipped, naming their target, outside it (unless what they lead to is given); a link given as an input is read wherever it leads; a file once', async () => {
    const dir = await fixtureDir();
    const papers = path.join(dir, 'papers');
    const own = await writeFixture(papers, 'sub/own.jsonl', ARTICLE_LINE);
    const elsewhere = await writeFixture(dir, 'elsewhere/other.jsonl', ARTICLE_LINE);
    await symlink(own, path.join(papers, 'a-inside.jsonl'));
    await symlink(elsewhere, path.join(papers, 'b-outside.jsonl'));
    await symlink(path.dirname(elsewhere), path.join(papers, 'c-sibling-dir'));
    const given = path.join(dir, 'given.jsonl');
    await symlink(elsewhere, given);

    const { files, reported } = await expand([papers, given]);
    // own.jsonl is read once, under the first path reaching it; b-outside.jsonl leads to what `given` leads to, read as that.
    expect(files).toEqual([path.join(papers, 'a-inside.jsonl'), given]);
    expect(reported).toEqual([
      `${path.join(papers, 'c-sibling-dir')}: a link to ${path.dirname(elsewhere)}, outside the input directory: skipped (to read it, give ${path.dirname(elsewhere)} as an --input itself)`,
    ]);
    expect((await expand([papers])).reported).toEqual([
      `${path.join(papers, 'b-outside.jsonl')}: a link to ${elsewhere}, outside the input directory: skipped (to read it, give ${elsewhere} as an --input itself)`,
      `${path.join(papers, 'c-sibling-dir')}: a link to ${path.dirname(elsewhere)}, outside the input directory: skipped (to read it, give ${path.dirname(elsewhere)} as an --input itself)`,
    ]);
  });
});

describe.skipIf(!ON_LINUX)(`pseudo-files of /proc (${ON_LINUX ? 'Linux' : `SKIPPED: no /proc on ${process.platform}`})`, () => {
  it('are not read through a link in an input directory, and are refused when given', async () => {
    const dir = await fixtureDir();
    const papers = path.join(dir, 'papers');
    await writeFixture(papers, 'a.jsonl', ARTICLE_LINE);
    await symlink('/proc/self/status', path.join(papers, 'status'));
    const { files, reported } = await expand([papers]);
    expect(files).toEqual([path.join(papers, 'a.jsonl')]);
    expect(reported).toEqual([expect.stringMatching(new RegExp(`^${path.join(papers, 'status')}: a link to /proc/\\d+/status, outside the input directory: skipped`))]);

    await expect(expand(['/proc/self/status'])).rejects.toThrow(
      '/proc/self/status is under /proc, whose pseudo-files can go on forever: inputs must be regular files',
    );
    await expect(expand(['/proc/self'])).rejects.toThrow('/proc/self is under /proc');
    // Also given as a link: the real path is what counts.
    const link = path.join(dir, 'kernel-log');
    await symlink('/proc/self/status', link);
    await expect(expand([link])).rejects.toThrow(`${link} is under /proc`);
  });
});

describe('inputs that are not regular files', () => {
  it('are skipped, with a message, inside an input directory', async () => {
    const dir = await fixtureDir();
    const papers = path.join(dir, 'papers');
    await writeFixture(papers, 'a.jsonl', ARTICLE_LINE);
    await withFifo(papers, 'b.jsonl', async (fifo) => {
      const { files, reported } = await expand([papers]);
      expect(files).toEqual([path.join(papers, 'a.jsonl')]);
      expect(reported).toEqual([`${fifo}: a pipe, not a regular file: skipped`]);
    });
  });

  it.each([undefined, 'articles-jsonl'] as const)('end an ingest (format %s) when given, naming the input, before the index is created', async (format) => {
    const dir = await fixtureDir();
    const good = await writeFixture(dir, 'good.jsonl', ARTICLE_LINE);
    const indexDir = path.join(dir, `index-${format ?? 'detected'}`);
    await withFifo(dir, `stream-${format ?? 'detected'}`, async (fifo) => {
      await expect(ingest({ inputs: [good, fifo], indexDir, format })).rejects.toThrow(
        `${fifo} is a pipe, not a regular file: inputs must be regular files (write a stream to a file first, and give that file)`,
      );
    });
    expect(existsSync(indexDir)).toBe(false);
    await expect(expand(['/dev/null'])).rejects.toThrow('/dev/null is a character device, not a regular file');
  });

  it('are refused by the readers themselves, without waiting for a writer', async () => {
    const dir = await fixtureDir();
    await withFifo(dir, 'direct', async (fifo) => {
      await expect(detectFormat(fifo)).rejects.toThrow(`${fifo} is a pipe, not a regular file: inputs must be regular files`);
    });
    const lonely = path.join(dir, 'no-writer');
    execFileSync('mkfifo', [lonely]);
    await expect(detectFormat(lonely)).rejects.toThrow(`${lonely} is a pipe, not a regular file`);
    await expect(detectFormat('/dev/null')).rejects.toThrow('/dev/null is a character device, not a regular file');
  });
});
