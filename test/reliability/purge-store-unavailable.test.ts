/**
 * The periodic jobs (the archive purge, the collection of unreferenced file contents) while the platform
 * store is unavailable (its database away or read-only): expected during an outage and tried again at the
 * next run, so one warn line with the cause, as a request logs it, rather than an error with a stack each
 * run. Any other failure stays an error.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { ArchiveService } from '../../src/archive/archives.js';
import { BlobStore } from '../../src/platform/blobs.js';
import { StoreUnavailableError } from '../../src/platform/errors.js';
import { openServices } from '../../src/services.js';
import { MemoryLiterature } from '../platform/helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const READ_ONLY = 'the database is read-only (a hot standby, or default_transaction_read_only is on): cannot execute DELETE in a read-only transaction';

/** Opens the services with fake interval timers and runs `check` with what they log from then on. */
async function withServices(check: (logged: { level: string; message: string; details?: object }[]) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'purge-unavailable-'));
  const logged: { level: string; message: string; details?: object }[] = [];
  const logger = {
    info: (message: string) => void logged.push({ level: 'info', message }),
    warn: (message: string) => void logged.push({ level: 'warn', message }),
    error: (details: object, message: string) => void logged.push({ level: 'error', message, details }),
  };
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const services = await openServices({ dataDir, authFile: null, archiveTtlMs: 1000, literatureProject: 'literature/articles', literature: new MemoryLiterature([]), logger });
  try {
    logged.length = 0;
    await check(logged);
  } finally {
    await services.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

test('a purge the store cannot run is one warn line with the cause; any other failure stays an error with its stack', async () => {
  await withServices(async (logged) => {
    const broken = new Error('a stored archive hold is malformed');
    vi.spyOn(ArchiveService.prototype, 'purgeExpired').mockRejectedValueOnce(new StoreUnavailableError(new Error(READ_ONLY))).mockRejectedValueOnce(broken);
    await vi.advanceTimersByTimeAsync(2000);
    expect(logged).toEqual([
      { level: 'warn', message: `purging expired archives: platform store unavailable: ${READ_ONLY}` },
      { level: 'error', message: 'purging expired archives failed', details: { err: broken } },
    ]);
  });
});

test('so is a collection of unreferenced file contents (hourly)', async () => {
  await withServices(async (logged) => {
    const broken = new Error('a blob folder is unreadable');
    vi.spyOn(ArchiveService.prototype, 'purgeExpired').mockResolvedValue(0);
    vi.spyOn(BlobStore.prototype, 'collectGarbage').mockRejectedValueOnce(new StoreUnavailableError(new Error(READ_ONLY))).mockRejectedValueOnce(broken);
    await vi.advanceTimersByTimeAsync(2 * 60 * 60_000);
    expect(logged.filter((line) => line.level !== 'info')).toEqual([
      { level: 'warn', message: `collecting unreferenced file contents: platform store unavailable: ${READ_ONLY}` },
      { level: 'error', message: 'collecting unreferenced file contents failed', details: { err: broken } },
    ]);
  });
});
