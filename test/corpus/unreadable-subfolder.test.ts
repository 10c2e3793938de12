/**
 * A subfolder of an input folder that cannot be listed is reported and skipped, and the run goes on, counted
 * as an unreadable folder, not as a skipped file; the folder given itself still ends the run. Root reads every folder whatever its mode, so the listing's
 * failure is made here: the walk's `readdir` refuses one folder with the EACCES a user would meet.
 * (test/cli/ingest-walk-cli.test.ts meets a real locked folder as `nobody` where it can.)
 */
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { describeFiles, ingest } from '../../src/corpus/ingest.js';
import { fixtureDir, writeFixture } from './fixtures.js';

const LOCKED = 'locked';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const readdir = (async (directory: string, options?: unknown) => {
    if (path.basename(String(directory)) === LOCKED) {
      throw Object.assign(new Error(`EACCES: permission denied, scandir '${String(directory)}'`), { code: 'EACCES' });
    }
    return (actual.readdir as (d: string, o?: unknown) => Promise<unknown>)(directory, options);
  }) as typeof actual.readdir;
  return { ...actual, default: { ...actual, readdir }, readdir };
});

const line = (id: string) => JSON.stringify({ article_id: id, title: 'T', paragraphs: [{ section: 'S', text: `Place cells of ${id}.` }] });

describe('a subfolder that cannot be listed', () => {
  it('is reported and skipped, and the rest is indexed', async () => {
    const dir = await fixtureDir();
    await writeFixture(dir, 'papers/a.jsonl', line('a1'));
    await writeFixture(dir, `papers/${LOCKED}/b.jsonl`, line('b1'));
    const skipped: string[] = [];
    const report = await ingest({ inputs: [path.join(dir, 'papers')], indexDir: path.join(dir, 'index'), onSkip: (source, message) => skipped.push(`${source.file}: ${message}`) });
    const locked = path.join(dir, 'papers', LOCKED);
    expect(skipped).toEqual([`${locked}: cannot be read (EACCES: permission denied, scandir '${locked}'): skipped`]);
    // A folder is no file: it is counted apart, in the summary too.
    expect(report).toMatchObject({ files: 1, skippedFiles: 0, unreadableFolders: 1, indexed: 1 });
    expect(describeFiles(report)).toBe('files: 1 read, 1 unreadable folder skipped');
  });

  it('given as the input itself, ends the run before the index is touched', async () => {
    const dir = await fixtureDir();
    await writeFixture(dir, `${LOCKED}/b.jsonl`, line('b1'));
    await expect(ingest({ inputs: [path.join(dir, LOCKED)], indexDir: path.join(dir, 'index') })).rejects.toThrow(/EACCES/);
  });
});
