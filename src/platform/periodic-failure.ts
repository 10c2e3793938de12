/**
 * How a periodic job (the archive purge, the collection of unreferenced file contents) logs a run that
 * failed; the next run tries again. A platform store that is away or read-only is expected during an
 * outage or a failover: one warn line with its cause, as a request's 503 is logged, not an error with a
 * stack every few minutes. Anything else is an error.
 */
import { FileStorageUnavailableError, StoreUnavailableError } from './errors.js';
import type { Logger } from './index.js';

export function logPeriodicFailure(logger: Logger, job: string, error: unknown): void {
  if (error instanceof StoreUnavailableError) logger.warn(`${job}: platform store unavailable: ${(error.cause as Error | undefined)?.message}`);
  else if (error instanceof FileStorageUnavailableError) logger.warn(`${job}: skipped: ${error.message}`);
  else logger.error({ err: error }, `${job} failed`);
}
