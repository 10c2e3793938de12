/**
 * `npm run bench:peers`: this engine against Lucene, Xapian, SQLite FTS5,
 * MiniSearch and Orama on the same corpora, queries and k, in one run
 * (issue 5). Install the peers first with bench/peers/install.sh. Settings
 * are environment variables (lib/config.ts); for a quick run that leaves the
 * published results alone:
 *   PEERS_REPORT=peers-quick PEERS_PARAGRAPHS=20000 PEERS_QUERIES=50 PEERS_REPEATS=2 npm run bench:peers
 * Writes bench/results/peers.{json,md} (or the PEERS_REPORT name) and the SVG charts. PEERS_MERGE=1 keeps the
 * figures of bench/results/peers.json for the corpora this run does not measure
 * (e.g. PEERS_CORPORA=generated re-measures only the generated corpus; ratios
 * stay within one run, since every corpus is measured for all peers at once).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RESULTS_DIR, machine, sourceCommit } from '../lib/stats.js';
import { buildCompiled } from '../lib/compiled.js';
import { BenchSettingError } from '../lib/settings.js';
import { buildCompiledHarness } from './lib/peer-process.js';
import { machineProbe, missingPrerequisite } from './lib/availability.js';
import { loadBenchConfig, type BenchConfig, type CorpusName, type FieldMode, type PeerName } from './lib/config.js';
import { ensureCorpusFile } from './lib/docs.js';
import { measureQuality, measureSpeed, writeQueryFiles, type PeerRun, type QualityRun, type Workspace } from './lib/measure.js';
import { mergeMismatches, mergeReports, replacementLosses } from './lib/merge.js';
import { judgedQueries, querySets } from './lib/queries.js';
import { writeReport, type Report } from './lib/report.js';
import { loadChartRenderer } from './lib/charts.js';

/** A bad setting ends the run before any work, with its message alone. */
function refuse(message: string): never {
  process.stderr.write(`bench:peers: ${message}\n`);
  process.exit(2);
}

let config: BenchConfig;
try {
  config = loadBenchConfig();
} catch (error) {
  if (error instanceof BenchSettingError) refuse(error.message);
  throw error;
}
const started = Date.now();
const commit = sourceCommit(); // at the start: what dist/ is built from, whatever is committed during the run

const skipped = config.peers.flatMap((peer) => {
  const reason = missingPrerequisite(peer, machineProbe);
  return reason ? [{ peer, reason }] : [];
});
for (const { peer, reason } of skipped) process.stderr.write(`skipping ${peer}: ${reason}\n`);
config.peers = config.peers.filter((peer) => !skipped.some((s) => s.peer === peer));
if (config.peers.length === 0) refuse('none of the peers asked for is installed on this machine');

const merge = process.env.PEERS_MERGE ?? '';
if (!['', '0', '1'].includes(merge)) refuse(`PEERS_MERGE must be 1 (keep the earlier figures of the corpora not measured) or 0, got "${merge}"`);

const previousFile = path.join(RESULTS_DIR, `${config.reportName}.json`);
/** The results file this run replaces, read once: PEERS_MERGE=1 keeps some of its figures, and otherwise what it loses is said. */
const earlier = existsSync(previousFile) ? (JSON.parse(await readFile(previousFile, 'utf8')) as Report) : null;
const previous = merge === '1' ? mergeable(earlier) : null;

function mergeable(report: Report | null): Report {
  if (!report) refuse(`PEERS_MERGE=1 keeps figures of ${path.relative(process.cwd(), previousFile)}, which does not exist`);
  const mismatches = mergeMismatches(report.config, config);
  if (mismatches.length) refuse(`PEERS_MERGE=1: this run's settings differ from those of ${path.basename(previousFile)} (${mismatches.join('; ')})`);
  return report;
}

// Replacing a results file is allowed (they are in git), but never silently: a quick run left under the
// default name, or a run of one corpus, would otherwise quietly take the place of the published figures.
if (merge !== '1' && earlier) {
  const losses = replacementLosses(earlier, config);
  if (losses.length) {
    process.stderr.write(`note: this run will replace ${path.relative(process.cwd(), previousFile)} (a run of ${earlier.date}), losing ${losses.join(' and ')}; ` +
      `PEERS_REPORT names another file, PEERS_MERGE=1 keeps the corpora this run leaves out\n`);
  }
}

const ws: Workspace = {
  config,
  corpusFile: (corpus: CorpusName) => path.join(config.workDir, corpus === 'scifact' ? 'scifact.tsv' : `generated-${config.paragraphs}.tsv`),
  indexDir: (peer: PeerName, corpus: CorpusName, mode: FieldMode) =>
    path.join(config.workDir, 'indexes', `${peer}-${corpus === 'scifact' ? 'scifact' : `generated-${config.paragraphs}`}-${mode}`),
  queryFile: (name: string) => path.join(config.workDir, 'queries', `${name.replace(/\s+/g, '-')}.txt`),
};

process.stderr.write(`peer comparison: ${config.peers.join(', ')}; corpora ${config.corpora.join(', ')} ` +
  `(generated: ${config.paragraphs.toLocaleString('en')} paragraphs); ${config.queriesPerSet} queries per set, ` +
  `${config.repeats} repeats, ${config.secondsPerCell} s budget per cell, ${config.threads} threads\n`);

await loadChartRenderer().catch((error: unknown) => refuse((error as Error).message));
if (config.peers.some((peer) => peer === 'engine' || peer === 'engine-http')) {
  buildCompiled(); // the engine peers run the compiled server (dist/), as `npm start` does
  buildCompiledHarness();
}

const sets = await querySets(config.queriesPerSet);
const querySetSizes = Object.fromEntries(Object.entries(sets).map(([name, queries]) => [name, queries.length]));
for (const [name, size] of Object.entries(querySetSizes)) {
  if (size < config.queriesPerSet) process.stderr.write(`the ${name} set holds ${size} queries, fewer than PEERS_QUERIES=${config.queriesPerSet}: all of them are used\n`);
}
const judged = await judgedQueries();
await writeQueryFiles(ws, sets, judged.texts);

const quality: QualityRun[] = [];
const speed: PeerRun[] = [];
if (config.corpora.includes('scifact')) {
  await ensureCorpusFile(ws.corpusFile('scifact'), 'scifact', 0);
  for (const mode of ['split', 'merged'] as const) {
    for (const peer of config.peers) quality.push(await measureQuality(peer, ws, mode, judged.ids, judged.qrels));
  }
}
for (const corpus of config.corpora) {
  process.stderr.write(`preparing the ${corpus} corpus file\n`);
  await ensureCorpusFile(ws.corpusFile(corpus), corpus, config.paragraphs);
  speed.push(...(await measureSpeed(config.peers, ws, corpus, sets)));
}

const report: Report = {
  date: new Date().toISOString(),
  minutes: (Date.now() - started) / 60_000,
  machine: machine(),
  commit,
  ...(skipped.length ? { skipped } : {}),
  config: { ...config, workDir: path.relative(process.cwd(), config.workDir) },
  querySetSizes,
  quality,
  speed,
};
await writeReport(previous ? mergeReports(previous, report) : report);

const failed = [...speed.filter((run) => run.error).map((run) => `${run.peer} (${run.corpus})`), ...quality.filter((q) => q.error).map((q) => `${q.peer} (quality, ${q.mode})`)];
process.stderr.write(
  `peer comparison done in ${report.minutes.toFixed(1)} minutes: ${config.peers.join(', ')} measured` +
    `${failed.length ? `; failed: ${failed.join(', ')} (their errors are in the report)` : ''}` +
    `${skipped.length ? `; skipped: ${skipped.map((s) => s.peer).join(', ')}` : ''}\n`,
);
