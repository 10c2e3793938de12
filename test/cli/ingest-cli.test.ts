/** The ingestion command as a user runs it: counts, skipped records with their lines, exit codes. */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../search/helpers.js';
import { readManifest } from '../../src/search/manifest.js';
import { ingestCli } from './ingest-command.js';
import { COMPILED_MAIN } from '../compiled-server.js';


const good = (id: string) => JSON.stringify({ article_id: id, title: `Title ${id}`, paragraphs: [{ section: 'Results', text: `text of ${id}` }] });

describe('npm run ingest', () => {
  it('indexes good records, reports bad ones with file and line, and prints the counts', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const input = path.join(dir, 'in.jsonl');
      await writeFile(input, [good('a'), '{not json', good('b'), JSON.stringify({ article_id: 'c', title: 't', paragraphs: [{ section: 'x', text: 'y' }], journal_issn: '12-34' })].join('\n'));
      const { code, stderr } = ingestCli('--input', input, '--index', path.join(dir, 'index'));
      expect(code).toBe(0);
      expect(stderr).toContain(`skipped ${input}:2`);
      expect(stderr).toContain(`skipped ${input}:4`);
      expect(stderr).toMatch(/read 4, indexed 2 \(replaced 0\), skipped 2/);
      expect((await readManifest(path.join(dir, 'index'))).segments[0]!.articles).toBe(2);
    } finally {
      await cleanup();
    }
  });

  it('counts files it skipped, and says why a merge had nothing to do', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const inputs = path.join(dir, 'inputs');
      await mkdir(inputs);
      await writeFile(path.join(inputs, 'in.jsonl'), good('a'));
      await writeFile(path.join(inputs, 'NOTES.txt'), 'not an input format');
      const index = path.join(dir, 'index');
      const ingested = ingestCli('--input', inputs, '--index', index);
      expect(ingested.code).toBe(0);
      expect(ingested.stderr).toContain('ingest: files: 1 read, 1 skipped (not recognised or unreadable); records: read 1, indexed 1');
      const merged = ingestCli('--index', index, '--merge');
      expect(merged.code).toBe(0);
      expect(merged.stderr).toContain('merge: nothing to merge (the index has at most one segment, and no deletions); read whole, every checksum matched');
    } finally {
      await cleanup();
    }
  });

  it('exits non-zero and leaves the index unchanged when nothing could be indexed', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const input = path.join(dir, 'bad.jsonl');
      await writeFile(input, '{"article_id": 1}\n');
      const { code, stderr } = ingestCli('--input', input, '--index', path.join(dir, 'index'));
      expect(code).toBe(1);
      expect(stderr).toContain('nothing indexed');
      await expect(readManifest(path.join(dir, 'index'))).rejects.toThrow(/no index/);
    } finally {
      await cleanup();
    }
  });

  it('succeeds on an update file that only deletes: the deletion is published', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const index = path.join(dir, 'index');
      const articles = path.join(dir, 'articles.jsonl');
      await writeFile(articles, [good('9000001'), good('9000002')].join('\n'));
      expect(ingestCli('--input', articles, '--index', index).code).toBe(0);
      const update = path.join(dir, 'deletions.xml');
      await writeFile(
        update,
        '<?xml version="1.0"?>\n<PubmedArticleSet><DeleteCitation><PMID Version="1">9000001</PMID></DeleteCitation></PubmedArticleSet>\n',
      );
      const { code, stderr } = ingestCli('--input', update, '--format', 'pubmed', '--index', index);
      expect(stderr).toContain('deleted 1');
      expect(code).toBe(0);
      expect((await readManifest(index)).generation).toBe(2);
    } finally {
      await cleanup();
    }
  });

  it('refuses an empty --index instead of writing into the default index', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const input = path.join(dir, 'in.jsonl');
      await writeFile(input, good('a'));
      // Run from `dir`: the default index there, ./var/index, is what an empty --index had written into.
      for (const [args, env] of [[['--index', ''], {}], [[], { INDEX_DIR: '' }]] as const) {
        const result = spawnSync(process.execPath, [COMPILED_MAIN, 'ingest', ...args, '--input', input], {
          encoding: 'utf8',
          cwd: dir,
          env: { ...process.env, ...env },
        });
        expect(result.stderr).toContain('ingest needs --index, given empty (--index / INDEX_DIR)');
        expect(result.status).toBe(2);
        await expect(readManifest(path.join(dir, 'var', 'index'))).rejects.toThrow(/no index/);
      }
    } finally {
      await cleanup();
    }
  });

  it('explains usage errors with exit code 2', () => {
    expect(ingestCli('--index', '/tmp/x').code).toBe(2);
    expect(ingestCli('--input', 'a', '--index', '/tmp/x', '--format', 'csv').stderr).toMatch(/--format .*must be one of/);
  });

  it('names the path and the setting when --delete-file is a directory or --index is a file or cannot be made, and --help names ids as ids', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const input = path.join(dir, 'in.jsonl');
      await writeFile(input, good('a'));
      const deleteDir = ingestCli('--index', path.join(dir, 'index'), '--delete-file', dir);
      expect(deleteDir.code).toBe(1);
      expect(deleteDir.stderr).toContain(`--delete-file ${dir}: is a directory, not a file of ids`);
      // A binary file had been read as ids: each of its "lines" echoed as not found, exit 0.
      for (const [name, bytes] of [['binary.bin', Buffer.from(Array.from({ length: 256 }, (_, i) => i))], ['nul.txt', Buffer.from('a1\n\0\0\0\n')]] as const) {
        const binary = path.join(dir, name);
        await writeFile(binary, bytes);
        const deleteBinary = ingestCli('--input', input, '--index', path.join(dir, 'index'), '--delete-file', binary);
        expect(deleteBinary.code).toBe(1);
        expect(deleteBinary.stderr).toContain(`--delete-file ${binary}: is not a text file of article ids (one per line, UTF-8)`);
        expect(deleteBinary.stdout).not.toContain('not found');
      }
      const indexFile = ingestCli('--input', input, '--index', input);
      expect(indexFile.code).toBe(1);
      expect(indexFile.stderr).toContain(`the index directory ${input} is a file, or lies under one`);
      const underFile = ingestCli('--input', input, '--index', path.join(input, 'index'));
      expect(underFile.code).toBe(1);
      expect(underFile.stderr).toContain(`the index directory ${path.join(input, 'index')} is a file, or lies under one`);
      // Node 20's recursive mkdir spins forever on this path; the timeout turns a regression into a failure.
      const underProc = ingestCli('--input', input, '--index', '/proc/self/litserve-index');
      expect(underProc.code).toBe(1);
      expect(underProc.stderr).toContain(`cannot create the index directory /proc/self/litserve-index (ENOENT`);
      const help = ingestCli('--help');
      expect(help.stdout + help.stderr).toMatch(/--delete ID\.\.\. \/ INGEST_DELETE/);
      expect(help.stdout + help.stderr).toMatch(/--input PATH\.\.\. \/ INGEST_INPUT/);
    } finally {
      await cleanup();
    }
  });
});

