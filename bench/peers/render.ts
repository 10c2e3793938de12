/**
 * Re-renders bench/results/peers.md and the charts from bench/results/peers.json
 * without measuring again (after a change to the report's layout or notes):
 *   node --import tsx bench/peers/render.ts
 * PEERS_REPORT=peers-200k re-renders peers-200k.{json,md} and its charts instead.
 * Runs recorded before index sizes were split into searchable and stored parts
 * get them from their index directories when those are still in the work
 * directory (the very indexes that run measured; rebuilt by every run).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RESULTS_DIR } from '../lib/stats.js';
import { BenchSettingError } from '../lib/settings.js';
import { writeReport, type Report } from './lib/report.js';
import { indexSizes } from './lib/measure.js';
import { reportNameFromEnv } from './lib/config.js';

let name: string;
try {
  name = reportNameFromEnv();
} catch (error) {
  if (!(error instanceof BenchSettingError)) throw error;
  process.stderr.write(`bench/peers/render.ts: ${error.message}\n`);
  process.exit(2);
}
const file = path.join(RESULTS_DIR, `${name}.json`);
if (!existsSync(file)) {
  process.stderr.write(`bench/peers/render.ts: ${path.relative(process.cwd(), file)} does not exist (PEERS_REPORT names the run to re-render)\n`);
  process.exit(2);
}
const report = JSON.parse(await readFile(file, 'utf8')) as Report;
// Runs recorded before PEERS_REPORT existed carry no name: without it the files would be written as "undefined.md".
report.config.reportName = name;
for (const run of report.speed) {
  if (run.sizes !== undefined) continue;
  const corpus = run.corpus === 'scifact' ? 'scifact' : `generated-${report.config.paragraphs}`;
  const dir = path.resolve(report.config.workDir, 'indexes', `${run.peer}-${corpus}-split`);
  if (existsSync(dir)) run.sizes = await indexSizes(run.peer, dir);
}
await writeReport(report);
