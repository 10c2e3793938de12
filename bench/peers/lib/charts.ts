/** SVG charts of the peer comparison, rendered headless by Vega-Lite -> Vega (no browser, no canvas). */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RESULTS_DIR } from '../../lib/stats.js';
import { importPeerPackage } from '../node/optional-import.js';
import type { PeerRun, QualityRun } from './measure.js';

interface VegaModule {
  View: new (runtime: unknown, options: { renderer: 'none' }) => { toSVG(): Promise<string>; finalize(): void };
  parse(spec: unknown): unknown;
}
interface VegaLiteModule {
  compile(spec: unknown): { spec: unknown };
}

/**
 * The chart renderer's packages (bench/peers/node_modules). A run loads them before it measures anything:
 * missing, they had failed the run only when its report was written, its measurements lost.
 */
export async function loadChartRenderer(): Promise<{ vega: VegaModule; vegaLite: VegaLiteModule }> {
  return { vega: await importPeerPackage<VegaModule>('vega'), vegaLite: await importPeerPackage<VegaLiteModule>('vega-lite') };
}

async function render(spec: Record<string, unknown>, file: string): Promise<string> {
  const { vega, vegaLite } = await loadChartRenderer();
  const view = new vega.View(vega.parse(vegaLite.compile({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', ...spec }).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  await writeFile(path.join(RESULTS_DIR, file), svg);
  return file;
}

/**
 * A log y axis over whole decades with bars based at its bottom: this Vega-Lite
 * version draws log-scale bars with no height unless domain and base are given.
 */
function logY(values: number[], field: string, title: string) {
  const lo = 10 ** Math.floor(Math.log10(Math.min(...values)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...values)));
  return {
    y: { field, type: 'quantitative', scale: { type: 'log', domain: [lo, hi] }, title },
    y2: { datum: lo },
  };
}

const peerAxis = (peers: string[]) => ({ field: 'peer', type: 'nominal', sort: peers, title: null, axis: { labelAngle: -40 } });

/** Latency p50 per peer and k, one panel per query set, no filter. */
export function latencySpec(runs: PeerRun[], title: string) {
  const values = runs.flatMap((run) =>
    run.latency.filter((c) => c.filter === 'none').map((c) => ({ peer: run.peer, set: c.set, k: `top-${c.k}`, p50: Math.max(c.p50, 0.001) })),
  );
  return {
    title,
    data: { values },
    facet: { column: { field: 'set', type: 'nominal', title: null, sort: ['scifact', '1 term', '2 terms', '4 terms'] } },
    spec: {
      width: 170,
      height: 220,
      mark: 'bar',
      encoding: {
        x: peerAxis(runs.map((r) => r.peer)),
        xOffset: { field: 'k', sort: ['top-10', 'top-100', 'top-1000'] },
        ...logY(values.map((v) => v.p50), 'p50', 'p50 latency, ms (log)'),
        color: { field: 'k', type: 'nominal', sort: ['top-10', 'top-100', 'top-1000'], title: null },
      },
    },
  };
}

export function throughputSpec(runs: PeerRun[], title: string, threads: number) {
  const values = runs.flatMap((run) => run.throughput.map((c) => ({ peer: run.peer, filter: c.filter === 'none' ? 'no filter' : 'date + type filter', k: `top-${c.k}`, qps: Math.max(c.qps, 0.01) })));
  return {
    title,
    data: { values },
    facet: { column: { field: 'filter', type: 'nominal', title: null } },
    spec: {
      width: 260,
      height: 220,
      mark: 'bar',
      encoding: {
        x: peerAxis(runs.map((r) => r.peer)),
        xOffset: { field: 'k', sort: ['top-10', 'top-100', 'top-1000'] },
        ...logY(values.map((v) => v.qps), 'qps', `queries/s on ${threads} threads (log)`),
        color: { field: 'k', type: 'nominal', sort: ['top-10', 'top-100', 'top-1000'], title: null },
      },
    },
  };
}

export function ndcgSpec(quality: QualityRun[]) {
  const values = quality.filter((q) => Number.isFinite(q.ndcg10)).map((q) => ({
    peer: q.peer,
    layout: q.mode === 'split' ? 'split: title field ×0.25' : 'merged: one field',
    ndcg: q.ndcg10,
  }));
  return {
    title: 'SciFact (train, 809 queries): nDCG@10',
    data: { values },
    width: 420,
    height: 240,
    mark: { type: 'bar', clip: true },
    encoding: {
      x: peerAxis([...new Set(quality.map((q) => q.peer))]),
      xOffset: { field: 'layout' },
      y: { field: 'ndcg', type: 'quantitative', scale: { domain: [0.3, 0.75] }, title: 'nDCG@10 (axis from 0.3)' },
      color: { field: 'layout', type: 'nominal', title: null, legend: { labelLimit: 300 } },
    },
  };
}

/** Writes the charts; returns their file names (relative to bench/results). */
export async function writeCharts(quality: QualityRun[], speed: PeerRun[], threads: number, generatedLabel: string, prefix: string): Promise<string[]> {
  const files: string[] = [];
  if (quality.length) files.push(await render(ndcgSpec(quality), `${prefix}-ndcg.svg`));
  for (const corpus of ['scifact', 'generated'] as const) {
    const runs = speed.filter((r) => r.corpus === corpus && r.latency.length > 0);
    if (!runs.length) continue;
    const label = corpus === 'scifact' ? 'SciFact (5,183 abstracts)' : generatedLabel;
    files.push(await render(latencySpec(runs, `${label}: single-thread p50 latency, no filter`), `${prefix}-latency-${corpus}.svg`));
    files.push(await render(throughputSpec(runs, `${label}: throughput`, threads), `${prefix}-throughput-${corpus}.svg`));
  }
  return files;
}
