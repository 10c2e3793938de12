/**
 * What an ingestion's walk of its inputs tells and refuses: an index kept inside its input folder is not read
 * as input, an input inside the index and an --index folder of other files are refused before anything is
 * touched, hidden entries and empty input folders are told, and an article id read twice in one run is told
 * (a bounded number of times).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingest, MAX_REPEATS_TOLD, type IngestOptions } from '../../src/corpus/ingest.js';
import { MAX_UNSEEN_TOLD } from '../../src/corpus/unseen-characters.js';
import { fixtureDir, writeFixture } from './fixtures.js';

function line(id: string): string {
  return JSON.stringify({ article_id: id, title: 'T', paragraphs: [{ section: 'S', text: `Place cells of ${id}.` }] });
}

/** An ingestion with what it skipped and warned of gathered as lines. */
async function ingestTold(options: IngestOptions): Promise<{ report: Awaited<ReturnType<typeof ingest>>; skipped: string[]; warnings: string[] }> {
  const skipped: string[] = [];
  const warnings: string[] = [];
  const report = await ingest({ ...options, onSkip: (source, message) => skipped.push(`${source.file}: ${message}`), onWarning: (message) => warnings.push(message) });
  return { report, skipped, warnings };
}

describe('ingest with the index inside its input folder', () => {
  it('does not read the index as input on the next run', async () => {
    const dir = await fixtureDir();
    const project = path.join(dir, 'proj');
    await writeFixture(project, 'papers.jsonl', `${line('a1')}\n${line('a2')}\n`);
    const index = path.join(project, 'index');
    expect((await ingestTold({ inputs: [project], indexDir: index })).report).toMatchObject({ files: 1, indexed: 2 });
    const { report, skipped } = await ingestTold({ inputs: [project], indexDir: index });
    expect(report).toMatchObject({ files: 1, skippedFiles: 0, indexed: 2, replaced: 2 });
    expect(skipped).toEqual([`${index}: the index this run writes (--index): not read as input`]);
  });

  it('refuses an input that is the index directory or lies inside it, before touching the index', async () => {
    const dir = await fixtureDir();
    const index = path.join(dir, 'index');
    await ingest({ inputs: [await writeFixture(dir, 'a.jsonl', line('a1'))], indexDir: index });
    const before = (await readdir(index)).sort();
    const manifest = await readFile(path.join(index, 'manifest.json'), 'utf8');
    await expect(ingest({ inputs: [index], indexDir: index })).rejects.toThrow(`--input ${index} is the index directory ${index}: an index is not an input`);
    const inside = path.join(index, 'manifest.json');
    await expect(ingest({ inputs: [inside], indexDir: index })).rejects.toThrow(`--input ${inside} lies inside the index directory ${index}`);
    expect((await readdir(index)).sort()).toEqual(before);
    expect(await readFile(path.join(index, 'manifest.json'), 'utf8')).toBe(manifest);
  });
});

describe('ingest into an --index folder that holds no index', () => {
  it('refuses a folder of other files (--input and --index swapped), naming it and what it holds, and writes nothing', async () => {
    const dir = await fixtureDir();
    const papers = path.join(dir, 'papers');
    for (let i = 0; i < 7; i++) await writeFixture(papers, `p${i}.jsonl`, line(`a${i}`));
    const index = path.join(dir, 'index');
    await ingest({ inputs: [await writeFixture(dir, 'b.jsonl', line('b1'))], indexDir: index });
    await expect(ingest({ inputs: [index], indexDir: papers })).rejects.toThrow(
      `--index ${papers} holds no index (no manifest.json) but other files: p0.jsonl, p1.jsonl, p2.jsonl, p3.jsonl, p4.jsonl, and 2 more; give a new or empty folder for a new index (were --input and --index swapped?)`,
    );
    expect((await readdir(papers)).sort()).toEqual(['p0.jsonl', 'p1.jsonl', 'p2.jsonl', 'p3.jsonl', 'p4.jsonl', 'p5.jsonl', 'p6.jsonl']);
  });

  it('takes an empty folder, or one of hidden entries only, as a new index', async () => {
    const dir = await fixtureDir();
    const input = await writeFixture(dir, 'a.jsonl', line('a1'));
    const empty = path.join(dir, 'empty');
    await mkdir(empty);
    const kept = path.join(dir, 'kept');
    await writeFixture(kept, '.gitkeep', '');
    for (const index of [empty, kept]) {
      expect((await ingest({ inputs: [input], indexDir: index })).indexed).toBe(1);
      expect(existsSync(path.join(index, 'manifest.json'))).toBe(true);
    }
  });
});

describe('ingest of input folders', () => {
  it('counts the hidden entries it does not read', async () => {
    const dir = await fixtureDir();
    const papers = path.join(dir, 'papers');
    for (const name of ['a.jsonl', '.DS_Store', '.git/config', '.git/HEAD', 'sub/.hidden.jsonl', 'sub/b.jsonl']) await writeFixture(papers, name, line(path.basename(name)));
    const { report } = await ingestTold({ inputs: [papers], indexDir: path.join(dir, 'index') });
    // .DS_Store, .git (not walked into) and sub/.hidden.jsonl.
    expect(report).toMatchObject({ files: 2, indexed: 2, hiddenEntries: 3 });
  });

  it('says that an input folder is empty, or holds no file to read', async () => {
    const dir = await fixtureDir();
    const empty = path.join(dir, 'empty');
    await mkdir(empty);
    const onlyHidden = path.join(dir, 'only-hidden');
    await writeFixture(onlyHidden, '.git/config', 'x');
    const onlyFolders = path.join(dir, 'only-folders');
    await mkdir(path.join(onlyFolders, 'sub'), { recursive: true });
    const input = await writeFixture(dir, 'a.jsonl', line('a1'));
    const { warnings } = await ingestTold({ inputs: [empty, onlyHidden, onlyFolders, input], indexDir: path.join(dir, 'index') });
    expect(warnings).toEqual([
      `input folder ${empty} is empty: nothing to read`,
      `input folder ${onlyHidden} holds only hidden entries (1), which are not read: nothing to read`,
      `input folder ${onlyFolders} holds no file to read`,
    ]);
  });
});

describe('ingest of a file reached by several paths', () => {
  it('reads it once, and reports it skipped once when no reader takes it', async () => {
    const dir = await fixtureDir();
    const papers = path.join(dir, 'papers');
    const paper = await writeFixture(papers, 'a.jsonl', line('a1'));
    const readme = await writeFixture(papers, 'README.txt', 'Papers of the lab.');
    const { report, skipped, warnings } = await ingestTold({ inputs: [papers, readme, paper, readme], indexDir: path.join(dir, 'index') });
    expect(report).toMatchObject({ files: 2, skippedFiles: 1, read: 1, indexed: 1, repeatedIds: 0 });
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(`${readme}: Cannot tell the format of ${readme}`);
    expect(warnings).toEqual([]);
  });
});

describe('ingest of an article id read twice in one run', () => {
  it('warns once per id, naming where it was read first and again', async () => {
    const dir = await fixtureDir();
    const first = await writeFixture(dir, 'first.jsonl', `${line('a1')}\n${line('a2')}\n`);
    const second = await writeFixture(dir, 'second.jsonl', `${line('a3')}\n${line('a1')}\n${line('a1')}\n`);
    const { report, warnings } = await ingestTold({ inputs: [first, second], indexDir: path.join(dir, 'index') });
    expect(report).toMatchObject({ indexed: 5, added: 3, replaced: 2, repeatedIds: 1 });
    expect(warnings).toEqual([`article_id "a1" read again in this run at ${second}:2 (first at ${first}:1): the later one is kept`]);
  });

  it('does not call an id already in the index, or one deleted and read again, repeated', async () => {
    const dir = await fixtureDir();
    const index = path.join(dir, 'index');
    const file = await writeFixture(dir, 'a.jsonl', line('a1'));
    await ingest({ inputs: [file], indexDir: index });
    const { report, warnings } = await ingestTold({ inputs: [file], indexDir: index });
    expect(report).toMatchObject({ replaced: 1, repeatedIds: 0 });
    expect(warnings).toEqual([]);
    // Successive PubMed update files: one deletes a citation, a later one brings it back.
    const citation = (pmid: string) =>
      `<PubmedArticle><MedlineCitation><PMID>${pmid}</PMID><Article><ArticleTitle>T</ArticleTitle><Abstract><AbstractText>Grid cells.</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle>`;
    const updates = [
      `<PubmedArticleSet>${citation('7')}</PubmedArticleSet>`,
      '<PubmedArticleSet><DeleteCitation><PMID>7</PMID></DeleteCitation></PubmedArticleSet>',
      `<PubmedArticleSet>${citation('7')}</PubmedArticleSet>`,
    ];
    const files = await Promise.all(updates.map((xml, i) => writeFixture(dir, `update-${i}.xml`, xml)));
    const updated = await ingestTold({ inputs: files, indexDir: path.join(dir, 'updated') });
    expect(updated.report).toMatchObject({ indexed: 2, deleted: 1, repeatedIds: 0 });
    expect(updated.warnings).toEqual([]);
  });

  it(`tells the first ${MAX_REPEATS_TOLD} repeated ids, then counts the rest`, async () => {
    const dir = await fixtureDir();
    const ids = Array.from({ length: MAX_REPEATS_TOLD + 5 }, (_, i) => `a${i}`);
    const file = await writeFixture(dir, 'a.jsonl', ids.map(line).join('\n'));
    const copy = await writeFixture(dir, 'copy.jsonl', ids.map(line).join('\n'));
    const { report, warnings } = await ingestTold({ inputs: [file, copy], indexDir: path.join(dir, 'index') });
    expect(report.repeatedIds).toBe(MAX_REPEATS_TOLD + 5);
    expect(warnings).toHaveLength(MAX_REPEATS_TOLD + 1);
    expect(warnings[0]).toBe(`article_id "a0" read again in this run at ${copy}:1 (first at ${file}:1): the later one is kept`);
    expect(warnings.at(-1)).toBe('... and 5 more article ids read more than once in this run');
  });
});

describe('ingest of articles holding control characters or lone surrogates', () => {
  it('keeps them, naming where each is for the first articles and counting the others', async () => {
    const dir = await fixtureDir();
    const record = (id: string, fields: object) => JSON.stringify({ article_id: id, title: 'T', paragraphs: [{ section: 'S', text: 'Place cells.' }], ...fields });
    const lines = [
      record('clean', { title: 'Tabs\tand\nlines are text' }),
      record('bell', { title: 'A bell\u0007 in the title' }),
      // A lone surrogate written as JSON escapes, the way a source keeps one.
      record('lone', { authors: ['Ada Lovelace'] }).replace('Ada Lovelace', 'Ada \\ud800Lovelace'),
      record('c1', { paragraphs: [{ section: 'S', text: 'Fine.' }, { section: 'S', text: 'Next\u0085line.' }] }),
      ...Array.from({ length: MAX_UNSEEN_TOLD }, (_, i) => record(`many-${i}`, { journal_name: `J\u001b${i}` })),
    ];
    const file = await writeFixture(dir, 'a.jsonl', lines.join('\n'));
    const { report, skipped, warnings } = await ingestTold({ inputs: [file], indexDir: path.join(dir, 'index') });
    expect(report).toMatchObject({ read: lines.length, indexed: lines.length, skipped: 0 });
    expect(skipped).toEqual([]);
    expect(warnings.slice(0, 3)).toEqual([
      `article_id "bell" at ${file}:2: its title holds U+0007, a control character; kept as read`,
      `article_id "lone" at ${file}:3: its authors holds U+D800, a lone surrogate (stored as U+FFFD); kept as read`,
      `article_id "c1" at ${file}:4: its paragraph 2 holds U+0085, a C1 control character (Windows-1252 punctuation read as Latin-1 becomes one); kept as read`,
    ]);
    expect(warnings[3]).toBe(`article_id "many-0" at ${file}:5: its journal_name holds U+001B, a control character; kept as read`);
    expect(warnings).toHaveLength(MAX_UNSEEN_TOLD + 1);
    expect(warnings.at(-1)).toBe('... and 3 more articles holding control characters or lone surrogates, kept as read');
  });
});
