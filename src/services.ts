/**
 * The composition root of the stored services: the resource platform
 * (identities, ACLs, organizations, projects, resources, files) and, built
 * over it, the archive service with its purge job. The HTTP layer receives
 * both; each checks its callers' permissions itself.
 */
import { ArchiveService } from './archive/archives.js';
import { purgeInterval, startPurgeJob } from './archive/purge.js';
import { type Platform, type PlatformOptions, openPlatform } from './platform/index.js';

export interface ServiceOptions extends PlatformOptions {
  archiveTtlMs: number;
}

export interface Services {
  platform: Platform;
  archives: ArchiveService;
  close(): Promise<void>;
}

export async function openServices(options: ServiceOptions): Promise<Services> {
  const platform = await openPlatform(options);
  const archives = new ArchiveService(platform, { ttlMs: options.archiveTtlMs });
  const purgeJob = startPurgeJob(() => archives.purgeExpired(), purgeInterval(options.archiveTtlMs), (removed) =>
    platform.logger.info(`purged ${removed} expired archive(s)`),
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
