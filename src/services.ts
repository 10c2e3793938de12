/**
 * The composition root of the stored services: the resource platform
 * (identities, ACLs, organizations, projects, resources, files) and, built
 * over it, the archive service with its purge job. The HTTP layer receives
 * both; each checks its callers' permissions itself.
 */
import { ArchiveService } from './archive/archives.js';
import { defaultOf } from './config.js';
import type { RenderBounds } from './archive/download.js';
import { purgeInterval, startPurgeJob } from './archive/purge.js';
import { type Platform, type PlatformOptions, openPlatform } from './platform/index.js';
import { logPeriodicFailure } from './platform/periodic-failure.js';

interface ServiceOptions extends Omit<PlatformOptions, 'maxFileBytes'> {
  /** Largest accepted upload, in bytes (default: --max-upload-bytes's). */
  maxFileBytes?: number;
  archiveTtlMs: number;
  /** Live archives one caller may hold (default: --max-archives-per-caller's, src/config/settings.ts). */
  maxArchivesPerCaller?: number;
  /** Total size of the stored archive definitions, in bytes (default: --max-archive-store-bytes's). */
  maxArchiveStoreBytes?: number;
  /** What one archive download may render (default DEFAULT_RENDER_BOUNDS). */
  archiveRenderBounds?: RenderBounds;
}

export interface Services {
  platform: Platform;
  archives: ArchiveService;
  close(): Promise<void>;
}

export async function openServices(options: ServiceOptions): Promise<Services> {
  const platform = await openPlatform({ ...options, maxFileBytes: options.maxFileBytes ?? defaultOf('maxUploadBytes') });
  let archives: ArchiveService;
  try {
    archives = await ArchiveService.open(platform, {
      ttlMs: options.archiveTtlMs,
      maxPerCaller: options.maxArchivesPerCaller ?? defaultOf('maxArchivesPerCaller'),
      maxStoreBytes: options.maxArchiveStoreBytes ?? defaultOf('maxArchiveStoreBytes'),
      ...(options.archiveRenderBounds && { renderBounds: options.archiveRenderBounds }),
    });
  } catch (error) {
    // A caller that goes on (a test, an embedding) keeps no open database nor render threads.
    await platform.close();
    throw error;
  }
  const purgeJob = startPurgeJob(
    () => archives.purgeExpired(),
    purgeInterval(options.archiveTtlMs),
    (removed) => platform.logger.info(`purged ${removed} expired archive(s)`),
    (error) => logPeriodicFailure(platform.logger, 'purging expired archives', error),
  );
  return {
    platform,
    archives,
    async close() {
      purgeJob.stop();
      await platform.close();
    },
  };
}
