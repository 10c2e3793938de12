/**
 * What the postings-level merge buys: the same index (generated paragraphs in
 * several segments, 1% of the articles deleted) merged into one segment by
 *
 *   - postings: `mergeAll` (src/search/merge.ts + merge-postings.ts), which
 *     renumbers and re-encodes postings and analyses no live text;
 *   - reanalyse: the previous way, every live article rebuilt from its stored
 *     fields through SegmentBuilder.addArticle (all text analysed again);
 *
 * each run in its own process on a fresh copy (wall time, peak RSS), the two
 * alternated over REPEATS rounds so both see the same machine load.
 *
 *   npm run bench:merge          (PARAGRAPHS=N, REPEATS=N to change; default 100,000 and 2)
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { IndexWriter } from '../src/search/index-writer.js';
import { readManifest, segmentFile, storedFile } from '../src/search/manifest.js';
import { mergeAll, storedArticleInput } from '../src/search/merge.js';
import { Bitset } from '../src/search/filters/bitset.js';
import { Segment } from '../src/search/segment/reader.js';
import { SegmentBuilder } from '../src/search/segment/writer.js';
import { openStoredFields } from '../src/search/stored/open.js';
import { sentenceSource, syntheticArticles } from './lib/synthetic-corpus.js';
import { machine, writeResults } from './lib/stats.js';
import { count } from './lib/settings.js';

const PARAGRAPHS = count('PARAGRAPHS', 100_000);
const REPEATS = count('REPEATS', 2);
const WORK_DIR = path.resolve('bench', '.work', `merge-${PARAGRAPHS}`);
const PRISTINE = path.join(WORK_DIR, 'pristine');
const VARIANTS = ['postings', 'reanalyse'] as const;
type Variant = (typeof VARIANTS)[number];

/** The re-analysing merge, as merge.ts did it before: kept here only as the reference to compare with. */
async function reanalyse(dir: string): Promise<void> {
  const builder = new SegmentBuilder();
  for (const entry of (await readManifest(dir)).segments) {
    const segment = await Segment.load(segmentFile(dir, entry.name));
    const stored = openStoredFields(storedFile(dir, entry.name), segment);
    const deleted = entry.deletions ? Bitset.fromBytes(segment.articleCount, await readFile(path.join(dir, entry.deletions))) : null;
    for (let a = 0; a < segment.articleCount; a++) if (!deleted?.has(a)) builder.addArticle(storedArticleInput(segment, stored, a));
    stored.close();
  }
  await builder.write(path.join(dir, 'reanalysed.seg'));
  await builder.stored.write(path.join(dir, 'reanalysed.stored'));
}

async function build(): Promise<{ segments: number; deleted: number }> {
  await rm(WORK_DIR, { recursive: true, force: true });
  await mkdir(WORK_DIR, { recursive: true });
  const writer = await IndexWriter.open(PRISTINE, { maxSegmentBytes: 48 * 1024 * 1024 });
  const ids: string[] = [];
  for (const article of syntheticArticles(PARAGRAPHS, sentenceSource())) {
    await writer.add(article);
    ids.push(article.article_id);
  }
  await writer.commit();
  const deleter = await IndexWriter.open(PRISTINE);
  let deleted = 0;
  for (let i = 0; i < ids.length; i += 100) if (deleter.delete(ids[i]!)) deleted++;
  await deleter.commit();
  return { segments: (await readManifest(PRISTINE)).segments.length, deleted };
}

/** One merge in its own process on a fresh copy: wall time and peak RSS (VmHWM). */
async function run(variant: Variant): Promise<{ seconds: number; peakRssMiB: number }> {
  const dir = path.join(WORK_DIR, 'copy');
  await rm(dir, { recursive: true, force: true });
  await cp(PRISTINE, dir, { recursive: true });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/merge.ts', 'child', variant, dir], { stdio: ['ignore', 'inherit', 'inherit'] });
    let peakKiB = 0;
    const sampler = setInterval(() => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) peakKiB = Math.max(peakKiB, Number(match[1]));
      } catch {
        // exited
      }
    }, 100);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) reject(new Error(`${variant} merge failed (exit ${code})`));
      else resolve({ seconds: (performance.now() - started) / 1000, peakRssMiB: peakKiB / 1024 });
    });
  });
}

async function main(): Promise<void> {
  const { segments, deleted } = await build();
  const runs: { round: number; variant: Variant; seconds: number; peakRssMiB: number }[] = [];
  for (let round = 0; round < REPEATS; round++) {
    // Alternate which goes first, so neither always meets the same moment of the machine's load.
    for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
      const result = await run(variant);
      process.stderr.write(`round ${round} ${variant}: ${JSON.stringify(result)}\n`);
      runs.push({ round, variant, ...result });
    }
  }
  const result = { machine: machine(), loadAverage: os.loadavg()[1]!, paragraphs: PARAGRAPHS, segments, deleted, runs };
  await writeResults('merge', result, render(result));
  await rm(WORK_DIR, { recursive: true, force: true });
}

function render(result: { machine: Record<string, unknown>; loadAverage: number; paragraphs: number; segments: number; deleted: number; runs: { round: number; variant: Variant; seconds: number; peakRssMiB: number }[] }): string {
  const of = (round: number, variant: Variant) => result.runs.find((r) => r.round === round && r.variant === variant)!;
  const rows = Array.from({ length: REPEATS }, (_, round) => {
    const [postings, reanalysed] = [of(round, 'postings'), of(round, 'reanalyse')];
    return `| ${round + 1} | ${postings.seconds.toFixed(1)} s | ${reanalysed.seconds.toFixed(1)} s | ${(postings.seconds / reanalysed.seconds).toFixed(2)} | ${postings.peakRssMiB.toFixed(0)} MiB | ${reanalysed.peakRssMiB.toFixed(0)} MiB |`;
  });
  return [
    '# Merging: postings-level against re-analysing',
    '',
    `Generated by \`npm run bench:merge\` (\`bench/merge.ts\`) on ${result.machine.cores} cores, Node ${result.machine.node};`,
    `5-minute load average at the end: ${result.loadAverage.toFixed(1)} (a shared machine: only the ratios of one round count).`,
    `Index: ${result.paragraphs.toLocaleString()} generated paragraphs in ${result.segments} segments, ${result.deleted} articles deleted (1%); each merge writes one segment`,
    'in its own process (Node and tsx start-up included) on a fresh copy; the two ways alternate, the first one switching every round.',
    '',
    '| round | postings-level | re-analysing | time ratio | peak RSS postings-level | peak RSS re-analysing |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

if (process.argv[2] === 'child') {
  const [variant, dir] = process.argv.slice(3) as [Variant, string];
  if (variant === 'postings') await mergeAll(dir);
  else await reanalyse(dir);
} else {
  await main();
}
