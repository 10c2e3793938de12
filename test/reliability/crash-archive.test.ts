/**
 * An archive download interrupted by SIGKILL loses nothing: the archive is
 * created the way ZIP clients do (303, then GET of the Location), its ZIP is
 * read part way, the server is killed, and after restart on the same data
 * directory the archive's metadata is there, the ZIP downloads whole (checked
 * with yauzl, byte for byte), and the data directory holds exactly the files
 * it held before the download: no temporary file, nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARCHIVE_MIN_BYTES,
  type ArchiveFixture,
  archiveFixture,
  createArchive,
  expectWholeArchive,
  listTree,
  startDownload,
} from './archive-fixture.js';
import { admin, kill, startServerProcess } from './server-process.js';

let fixture: ArchiveFixture;

beforeAll(async () => {
  fixture = await archiveFixture('litserve-crash-archive-');
}, 120_000);

afterAll(async () => {
  await fixture?.cleanup();
});

describe('SIGKILL mid-download', () => {
  it('after restart the archive is there and downloads whole, and the data directory holds nothing new', async () => {
    let server = await startServerProcess(fixture);
    try {
      const location = await createArchive(server, fixture);
      const before = await listTree(fixture.dataDir);
      const download = await startDownload(location);
      expect(await download.readAtLeast(256 * 1024)).toBe(false);
      await kill(server);
      await expect(download.readToEnd(0)).rejects.toThrow();
      expect(download.received(), 'the kill came after the whole ZIP was sent: the test proves nothing').toBeLessThan(ARCHIVE_MIN_BYTES);

      server = await startServerProcess({ ...fixture, port: server.port });
      const metadata = await fetch(location, { headers: { ...admin, accept: 'application/json' } });
      expect(metadata.status).toBe(200);
      const described = (await metadata.json()) as { _self: string; _expiresInSeconds: number; resources: unknown[] };
      expect(described._self).toBe(location);
      expect(described._expiresInSeconds).toBeGreaterThan(0);
      expect(described.resources).toHaveLength(fixture.definition.resources.length);
      const again = await startDownload(location);
      const zip = await again.readToEnd(0);
      expect(zip.length).toBeGreaterThan(ARCHIVE_MIN_BYTES);
      await expectWholeArchive(zip, fixture);
      // The killed download and the restarts wrote nothing to the data directory (LMDB's two files included).
      expect(await listTree(fixture.dataDir)).toEqual(before);
    } finally {
      await kill(server);
    }
  }, 120_000);
});
