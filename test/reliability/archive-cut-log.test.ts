/**
 * An archive download the server cuts after its first bytes (a file found damaged on disk as its entry is
 * written) is logged as cut by the server after its error, not as its client's departure: the log had blamed
 * the client, whose download the server had ended.
 */
import { truncate } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArchiveFixture, archiveFixture, createArchive, startDownload } from './archive-fixture.js';
import { admin, kill, startServerProcess } from './server-process.js';

let fixture: ArchiveFixture;
beforeAll(async () => {
  fixture = await archiveFixture('litserve-archive-cut-');
}, 120_000);
afterAll(async () => {
  await fixture?.cleanup();
});

describe('an archive download cut by the server', () => {
  it('is logged as cut after the error that cut it, never as the client leaving', async () => {
    const server = await startServerProcess({ ...fixture, extraFlags: ['--log-level', 'info'] });
    try {
      const download = await startDownload(await createArchive(server, fixture));
      expect(await download.readAtLeast(64 * 1024)).toBe(false);
      // The last entry in path order, damaged once the download has checked it: found as its entry is written.
      const file = (await (await fetch(`${server.base}/v1/files/lab/a/f9`, { headers: { ...admin, accept: 'application/json' } })).json()) as { _digest: { _value: string } };
      const digest = file._digest._value;
      await truncate(path.join(fixture.dataDir, 'platform', 'files', 'sha256', digest.slice(0, 2), digest.slice(2, 4), digest), 100);
      const zip = await download.readToEnd(0).catch(() => null);
      expect(zip === null || zip.length < 8 * 1024 * 1024).toBe(true);
      await expect.poll(() => server.output()).toContain('response cut by the server after its first bytes (its error is logged above)');
      const lines = server.output().split('\n');
      const failed = lines.findIndex((line) => line.includes('archive stream failed after the headers were sent'));
      const cut = lines.findIndex((line) => line.includes('response cut by the server'));
      expect(failed).toBeGreaterThanOrEqual(0);
      expect(cut).toBeGreaterThan(failed);
      expect(lines[failed]).toContain("is damaged in the server's storage: 100 bytes where 524288 were stored");
      expect(server.output()).not.toContain('client disconnected before the response was sent');
    } finally {
      await kill(server);
    }
  }, 60_000);
});
