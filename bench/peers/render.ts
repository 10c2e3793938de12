/**
 * Re-renders bench/results/peers.md and the charts from bench/results/peers.json
 * without measuring again (after a change to the report's layout or notes):
 *   node --import tsx bench/peers/render.ts
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RESULTS_DIR } from '../lib/stats.js';
import { writeReport, type Report } from './lib/report.js';

const report = JSON.parse(await readFile(path.join(RESULTS_DIR, 'peers.json'), 'utf8')) as Report;
await writeReport(report);
