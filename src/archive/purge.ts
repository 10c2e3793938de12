/** The periodic job that erases expired archives. Reads already hide them; this reclaims their records. */
interface PurgeJob {
  stop(): void;
}

export function startPurgeJob(purge: () => Promise<number>, everyMs: number, log: (removed: number) => void, fail: (error: Error) => void): PurgeJob {
  const timer = setInterval(() => {
    purge().then((removed) => removed > 0 && log(removed), fail);
  }, everyMs);
  // The job must never keep the process alive on its own.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Every 5 minutes as in the reference, or sooner when archives live shorter than that. */
export function purgeInterval(ttlMs: number): number {
  return Math.max(1000, Math.min(5 * 60_000, ttlMs));
}
