/**
 * Progress output for long jobs: a bar on an interactive terminal, a line
 * every few seconds otherwise (logs, CI).
 */
import { SingleBar, Presets } from 'cli-progress';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

export function createProgress(label: string, unit: 'bytes' | 'items' = 'bytes'): Progress {
  const format = (n: number) => (unit === 'bytes' ? `${(n / 1048576).toFixed(1)} MiB` : String(n));
  if (process.stderr.isTTY) {
    const bar = new SingleBar(
      { format: `${label} [{bar}] {percentage}% | {doneText} / {totalText} | ETA {eta}s`, stream: process.stderr, hideCursor: true },
      Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total) {
        const payload = { doneText: format(done), totalText: format(total) };
        if (!started) {
          bar.start(total, done, payload);
          started = true;
        } else bar.update(done, payload);
      },
      stop: () => started && bar.stop(),
    };
  }
  let lastPrint = 0;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - lastPrint < 3000 && done < total) return;
      lastPrint = now;
      const percent = total > 0 ? ((100 * done) / total).toFixed(0) : '100';
      process.stderr.write(`${label}: ${percent}% (${format(done)} / ${format(total)})\n`);
    },
    stop() {},
  };
}
