/**
 * Re-renders bench/results/peers.md and the charts from bench/results/peers.json
 * without measuring again (after a change to the report's layout or notes):
 *   node --import tsx bench/peers/render.ts
 * Runs recorded before index sizes were split into searchable and stored parts
 * get them from their index directories when those are still in the work
 * directory (the very indexes that run measured; rebuilt by every run).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RESULTS_DIR } from '../lib/stats.js';
import { writeReport, type Report } from './lib/report.js';
import { indexSizes } from './lib/measure.js';

const report = JSON.parse(await readFile(path.join(RESULTS_DIR, 'peers.json'), 'utf8')) as Report;
for (const run of report.speed) {
  if (run.sizes !== undefined) continue;
  const corpus = run.corpus === 'scifact' ? 'scifact' : `generated-${report.config.paragraphs}`;
  const dir = path.resolve(report.config.workDir, 'indexes', `${run.peer}-${corpus}-split`);
  if (existsSync(dir)) run.sizes = await indexSizes(run.peer, dir);
}
await writeReport(report);
