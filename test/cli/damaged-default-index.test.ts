/**
 * `npm start` on a default index that cannot be read, its manifest truncated or a segment cut short, says what to do:
 * restore or re-ingest, and, the default index being most often the demo corpus's, remove it to have it built again.
 * (A truncated manifest had been told "edited or truncated by hand?" and nothing more.)
 */
import { truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, readManifest, segmentFile } from '../../src/search/manifest.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { runCommand } from '../compiled-server.js';

const serve = (...args: string[]) => runCommand(['serve', '--port', '0', ...args]);

describe('a default index that cannot be read', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let index: string;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    index = path.join(dir, 'data', 'index');
    await writeIndex(index, [article('a1', ['place cells fire in one place'])]);
  });
  afterEach(() => cleanup?.());

  it('its manifest truncated: restore, re-ingest, or remove it to have the demo index built again', async () => {
    await writeFile(path.join(index, MANIFEST_FILE), '{"formatVersion":');
    const started = serve('--data', path.join(dir, 'data'));
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(
      `is not valid JSON (Unexpected end of JSON input): edited or truncated by hand? restore the index directory from a backup, or re-ingest the corpus into a new index directory; if it holds only the demo corpus, remove ${index} and start again: it is rebuilt\n`,
    );
  });

  it('a segment cut short: the same way out', async () => {
    await truncate(segmentFile(index, (await readManifest(index)).segments[0]!.name), 10);
    const started = serve('--data', path.join(dir, 'data'));
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(`; if it holds only the demo corpus, remove ${index} and start again: it is rebuilt\n`);
  });
});
