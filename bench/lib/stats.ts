/** Small helpers shared by benchmarks: percentiles, memory sampling, result files. */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(millis: number[]): { p50: number; p99: number; mean: number; n: number } {
  const sorted = [...millis].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length),
    n: sorted.length,
  };
}

/** Samples RSS every `intervalMs` and reports the peak seen since start. */
export function rssSampler(intervalMs = 50): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

export function machine(): Record<string, string | number> {
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    // The machine is shared: the 1-minute load average when the results were written says how busy it was.
    loadAverage1m: Number(os.loadavg()[0]!.toFixed(1)),
  };
}

/** The commit measured, marked when the work tree had changes to tracked files (those are measured too). */
export function sourceCommit(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const commit = git('rev-parse', '--short=12', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') ? `${commit} with uncommitted changes` : commit;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

export const RESULTS_DIR = path.resolve('bench', 'results');

/** What was measured, and on what: taken when a benchmark starts (it imports this module before any work), whatever is committed during the run. */
export const MEASURED = { commit: sourceCommit(), cpu: os.cpus()[0]?.model ?? 'unknown' };

/** The line a report ends a measured part with. */
export const measuredLine = (measured: typeof MEASURED) => `Measured at commit ${measured.commit}, on ${measured.cpu}.`;

/** The results with the commit and CPU model measured added: to the JSON as `measured`, to the report as its last line. */
export function stampedResults(json: object, markdown: string, measured = MEASURED): { json: object; markdown: string } {
  return { json: { ...json, measured }, markdown: `${markdown.trimEnd()}\n\n${measuredLine(measured)}\n` };
}

/**
 * Writes bench/results/<name>.json and .md, stamped with the commit and CPU measured (stampedResults); `stamped: false`
 * for a report that records its own, as bench:peers' does (its re-rendering must keep the commit of the run).
 */
export async function writeResults(name: string, json: object, markdown: string, { stamped = true } = {}): Promise<void> {
  const results = stamped ? stampedResults(json, markdown) : { json, markdown };
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFile(path.join(RESULTS_DIR, `${name}.json`), JSON.stringify(results.json, null, 2) + '\n');
  await writeFile(path.join(RESULTS_DIR, `${name}.md`), results.markdown);
  process.stderr.write(`results written to bench/results/${name}.json and ${name}.md\n`);
}

export const mib = (bytes: number) => bytes / 1048576;
