/**
 * A truncated segment file, met by each command: all three say the file is truncated and the index
 * damaged, with the same advice (re-ingest). Serving and eval had said `cannot load …seg: Offset is
 * outside the bounds of the DataView` (or the decoder's "Unexpected end of MessagePack data") with no
 * advice, and ingest the decoder's message with part of the header dumped as JSON.
 */
import { readFileSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { runCommand } from '../compiled-server.js';

const run = (...args: string[]) => runCommand(args);

describe.each([
  // Shorter than the preamble: the header's length could not even be read (the DataView error).
  [10, /: truncated: the file has 10 bytes, fewer than a segment's 16-byte preamble/],
  // The header cut off (the decoder's errors).
  [100, /: truncated: the file has 100 bytes, but its header ends at byte \d+/],
])('a segment truncated to %i bytes', (bytes, truncated) => {
  it('is named truncated, its index damaged, by ingest, eval and serve alike', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      await writeIndex(indexDir, [article('a1', ['place cells fire in CA1']), article('a2', ['grid cells tile space'])]);
      const segment = readdirSync(indexDir).find((name) => name.endsWith('.seg'))!;
      truncateSync(path.join(indexDir, segment), bytes);
      const [input, queries, qrels] = ['in.jsonl', 'queries.jsonl', 'qrels.tsv'].map((name) => path.join(dir, name)) as [string, string, string];
      await writeFile(input, JSON.stringify({ article_id: 'a3', title: 'T', paragraphs: [{ section: 'Results', text: 'theta' }] }));
      await writeFile(queries, '{"_id": "q1", "text": "place cells"}\n');
      await writeFile(qrels, 'q1\ta1\t1\n');

      const ingested = run('ingest', '--index', indexDir, '--input', input);
      const evaluated = run('eval', '--index', indexDir, '--queries', queries, '--qrels', qrels);
      const served = run('serve', '--index', indexDir, '--data', path.join(dir, 'data'), '--host', '127.0.0.1', '--port', '0', '--search-threads', '0');
      const advice = `; the index ${indexDir} is damaged: re-ingest the corpus into a new index directory`;
      for (const { code, stderr } of [ingested, evaluated, served]) {
        expect(code).toBe(1);
        const error = stderr.split('\n').find((line) => line.startsWith('error: '));
        expect(error, stderr).toMatch(truncated);
        expect(error).toContain(`error: ${path.join(indexDir, segment)}: truncated`);
        expect(error).toContain(advice);
        // No internal dump (the decoder quoted the header as JSON) and no bare system message.
        expect(error).not.toMatch(/[{}]|DataView|MessagePack/);
      }
      expect(ingested.stderr).toContain(`${advice} (nothing was written: servers keep serving generation 1)`);
    } finally {
      await cleanup();
    }
  }, 120_000);
});

describe('a truncated stored-fields or deletions file', () => {
  it('is named, with its index damaged, by eval and serve', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      await writeIndex(indexDir, [article('a1', ['place cells fire in CA1']), article('a2', ['grid cells tile space'])]);
      const [queries, qrels] = ['queries.jsonl', 'qrels.tsv'].map((name) => path.join(dir, name)) as [string, string];
      await writeFile(queries, '{"_id": "q1", "text": "place cells"}\n');
      await writeFile(qrels, 'q1\ta1\t1\n');
      const advice = `; the index ${indexDir} is damaged: re-ingest the corpus into a new index directory`;
      const expectNamed = (file: string) => {
        const evaluated = run('eval', '--index', indexDir, '--queries', queries, '--qrels', qrels);
        const served = run('serve', '--index', indexDir, '--data', path.join(dir, 'data'), '--host', '127.0.0.1', '--port', '0', '--search-threads', '0');
        for (const { code, stderr } of [evaluated, served]) {
          expect(code).toBe(1);
          const error = stderr.split('\n').find((line) => line.startsWith('error: '));
          expect(error, stderr).toContain(file);
          expect(error).toContain(advice);
        }
      };
      const stored = path.join(indexDir, readdirSync(indexDir).find((name) => name.endsWith('.stored'))!);
      const whole = readFileSync(stored);
      truncateSync(stored, 40);
      expectNamed(stored);
      writeFileSync(stored, whole);
      // A deletion, then its file cut short.
      expect(run('ingest', '--index', indexDir, '--delete', 'a2').code).toBe(0);
      const deletions = path.join(indexDir, readdirSync(indexDir).find((name) => /\.del-\d+$/.test(name))!);
      truncateSync(deletions, 0);
      expectNamed(deletions);
    } finally {
      await cleanup();
    }
  }, 180_000);
});
