/**
 * The section of bench/results/peers.md that checks the engine-v2 targets: the
 * engine against Lucene on the generated corpus, as engine ÷ Lucene per cell
 * (below 1 = the engine is faster or smaller), with the index split into its
 * searchable and stored parts (bench/lib/segment-sizes.ts).
 */
import type { FilterName, PeerRun } from './measure.js';
import type { Report } from './report.js';

const fmt = (x: number) => x.toFixed(2);
const verdict = (met: boolean) => (met ? '**met**' : '**not met**');

export function luceneTargetsSection(report: Report): string {
  const runs = report.speed.filter((r) => r.corpus === 'generated');
  const engine = runs.find((r) => r.peer === 'engine');
  const lucene = runs.find((r) => r.peer === 'lucene');
  if (!engine || !lucene || !engine.latency.length || !lucene.latency.length) return '';
  const key = (c: { k: number; filter: FilterName }) => `${c.k}|${c.filter}`;
  const cells = engine.latency.flatMap((c) => {
    const other = lucene.latency.find((x) => x.set === c.set && key(x) === key(c));
    return other ? [{ label: `${c.set} k=${c.k} ${c.filter}`, set: c.set, k: c.k, filter: c.filter, engine: c.p50, lucene: other.p50, ratio: c.p50 / other.p50 }] : [];
  });
  const rates = engine.throughput.flatMap((c) => {
    const other = lucene.throughput.find((x) => key(x) === key(c));
    return other ? [{ k: c.k, filter: c.filter, engine: c.qps, lucene: other.qps, ratio: c.qps / other.qps }] : [];
  });
  const atMostLucene = cells.filter((c) => c.ratio <= 1).length;
  const worst = cells.reduce((w, c) => (c.ratio > w.ratio ? c : w), cells[0]!);
  const lines = [
    `## Issue 9: the engine against Lucene (${report.config.paragraphs.toLocaleString('en')} generated paragraphs)`,
    '',
    'Engine ÷ Lucene in this run (below 1: the engine is faster, smaller or - for throughput, above 1 - answers more).',
    'The machine is shared with other work: only ratios within one run mean anything.',
    '',
    '| queries | k | filter | engine p50 ms | Lucene p50 ms | engine ÷ Lucene |',
    '| --- | --- | --- | --- | --- | --- |',
    ...cells.map((c) => `| ${c.set} | ${c.k} | ${c.filter} | ${fmt(c.engine)} | ${fmt(c.lucene)} | ${fmt(c.ratio)}× |`),
    '',
    '| throughput k | filter | engine q/s | Lucene q/s | engine ÷ Lucene |',
    '| --- | --- | --- | --- | --- |',
    ...rates.map((r) => `| ${r.k} | ${r.filter} | ${r.engine.toFixed(0)} | ${r.lucene.toFixed(0)} | ${fmt(r.ratio)}× |`),
    '',
    `- p50 ≤ Lucene's in at least 21 of ${cells.length} cells: ${atMostLucene} of ${cells.length} ${verdict(atMostLucene >= 21)}; ` +
      `no cell worse than 1.25×: worst ${worst.label} at ${fmt(worst.ratio)}× ${verdict(worst.ratio <= 1.25)}.`,
    `- throughput ≥ Lucene's in all ${rates.length} cells: ${rates.filter((r) => r.ratio >= 1).length} of ${rates.length} ${verdict(rates.every((r) => r.ratio >= 1))}.`,
    ...memoryLines(engine, lucene),
  ];
  return lines.join('\n');
}

function memoryLines(engine: PeerRun, lucene: PeerRun): string[] {
  const lines: string[] = [];
  if (engine.load && lucene.load) {
    const ratio = engine.load.rssMiB / lucene.load.rssMiB;
    lines.push(`- RSS after load ≤ Lucene's: ${engine.load.rssMiB.toFixed(0)} vs ${lucene.load.rssMiB.toFixed(0)} MiB (${fmt(ratio)}×) ${verdict(ratio <= 1)}.`);
  }
  if (engine.indexMiB && lucene.indexMiB) {
    const ratio = engine.indexMiB / lucene.indexMiB;
    lines.push(`- index on disk ≤ 3× Lucene's: ${engine.indexMiB.toFixed(1)} vs ${lucene.indexMiB.toFixed(1)} MiB (${fmt(ratio)}×) ${verdict(ratio <= 3)}.`);
  }
  const e = engine.sizes;
  const l = lucene.sizes;
  if (e && l) {
    const ratio = e.searchableMiB / l.searchableMiB;
    lines.push(
      `- searchable part ≤ Lucene's comparable files: engine ${e.searchableMiB.toFixed(1)} MiB (postings, norms, dictionary, block metadata, ` +
        `filter columns; stored text and records ${e.storedMiB.toFixed(1)} MiB apart) vs Lucene ${l.searchableMiB.toFixed(1)} MiB ` +
        `(all files but stored fields ${l.storedMiB.toFixed(1)} MiB and positions ${(l.positionsMiB ?? 0).toFixed(1)} MiB, which the engine does not index) ` +
        `(${fmt(ratio)}×) ${verdict(ratio <= 1)}.`,
    );
  }
  return lines;
}
