/**
 * PEERS_MERGE=1: a run that measures some corpora keeps the figures of the
 * results file it replaces for the others. The report then says both runs had
 * the same settings, so that is checked before measuring, not after an hour.
 */
import type { BenchConfig } from './config.js';
import type { Report } from './report.js';

/** The settings every figure of one report must share (the corpora measured may differ). */
const SHARED_SETTINGS = ['paragraphs', 'peers', 'queriesPerSet', 'repeats', 'secondsPerCell', 'threads'] as const;

/** Settings of `current` that differ from the earlier run's, as "name: earlier → now". */
export function mergeMismatches(previous: Partial<BenchConfig>, current: BenchConfig): string[] {
  return SHARED_SETTINGS.flatMap((name) => {
    const before = JSON.stringify(previous[name]);
    const now = JSON.stringify(current[name]);
    return before === now ? [] : [`${name}: ${before ?? 'not recorded'} → ${now}`];
  });
}

/** This run's figures, and the earlier run's for the corpora this run did not measure. */
export function mergeReports(previous: Report, current: Report): Report {
  const measured = current.config.corpora;
  return {
    ...current,
    quality: measured.includes('scifact') ? current.quality : previous.quality,
    speed: [...previous.speed.filter((run) => !measured.includes(run.corpus)), ...current.speed],
    merged: { from: previous.date, corpora: [...new Set(previous.speed.map((run) => run.corpus))].filter((corpus) => !measured.includes(corpus)) },
  };
}

/**
 * What replacing an earlier results file (without PEERS_MERGE=1) loses that this run does not
 * measure again: its corpora this run leaves out, and its generated figures when this run's
 * corpus has another size. Empty when this run measures everything the earlier one held.
 */
export function replacementLosses(previous: Pick<Report, 'config' | 'quality' | 'speed'>, current: BenchConfig): string[] {
  const earlierCorpora = new Set([...previous.speed.map((run) => run.corpus), ...(previous.quality.length ? ['scifact' as const] : [])]);
  const losses = [...earlierCorpora].filter((corpus) => !current.corpora.includes(corpus)).map((corpus) => `its ${corpus} figures, which this run does not measure`);
  if (earlierCorpora.has('generated') && current.corpora.includes('generated') && previous.config.paragraphs !== current.paragraphs) {
    losses.push(`its ${previous.config.paragraphs.toLocaleString('en')}-paragraph figures, for this run's ${current.paragraphs.toLocaleString('en')}`);
  }
  return losses;
}
