/**
 * `npm run bench:peers`: this engine against Lucene, Xapian, SQLite FTS5,
 * MiniSearch and Orama on the same corpora, queries and k, in one run
 * (issue 5). Install the peers first with bench/peers/install.sh. Settings
 * are environment variables (lib/config.ts); for a quick run:
 *   PEERS_PARAGRAPHS=50000 PEERS_REPEATS=1 npm run bench:peers
 * Writes bench/results/peers.{json,md} and the SVG charts. PEERS_MERGE=1 keeps the
 * figures of bench/results/peers.json for the corpora this run does not measure
 * (e.g. PEERS_CORPORA=generated re-measures only the generated corpus; ratios
 * stay within one run, since every corpus is measured for all peers at once).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RESULTS_DIR, machine } from '../lib/stats.js';
import { buildCompiled } from '../lib/compiled.js';
import { buildCompiledHarness } from './lib/peer-process.js';
import { loadBenchConfig, type CorpusName, type FieldMode, type PeerName } from './lib/config.js';
import { ensureCorpusFile } from './lib/docs.js';
import { measureQuality, measureSpeed, writeQueryFiles, type PeerRun, type QualityRun, type Workspace } from './lib/measure.js';
import { judgedQueries, querySets } from './lib/queries.js';
import { writeReport, type Report } from './lib/report.js';

const config = loadBenchConfig();
const started = Date.now();
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

if (config.peers.some((peer) => peer === 'engine' || peer === 'engine-http')) {
  buildCompiled(); // the engine peers run the compiled server (dist/), as `npm start` does
  buildCompiledHarness();
}

const sets = await querySets(config.queriesPerSet);
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
  config: { ...config, workDir: path.relative(process.cwd(), config.workDir) },
  quality,
  speed,
};
if (process.env.PEERS_MERGE === '1') {
  const previous = JSON.parse(await readFile(path.join(RESULTS_DIR, `${config.reportName}.json`), 'utf8')) as Report;
  if (!config.corpora.includes('scifact')) report.quality = previous.quality;
  report.speed = [...previous.speed.filter((run) => !config.corpora.includes(run.corpus)), ...speed];
  report.merged = { from: previous.date, corpora: [...new Set(previous.speed.map((r) => r.corpus))].filter((c) => !config.corpora.includes(c)) };
}
await writeReport(report);
