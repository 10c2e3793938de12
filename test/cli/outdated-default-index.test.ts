/**
 * `npm start` on a default index written by a version of another segment format (a demo index built by an
 * older first start, most often) is refused saying how to rebuild it: remove the directory and start again.
 * An index given with --index gets the format's own message only (it may hold anything).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest, segmentFile } from '../../src/search/manifest.js';
import { article, markSegmentOutdated, tempDir, writeIndex } from '../search/helpers.js';
import { runCommand } from '../compiled-server.js';

const serve = (...args: string[]) => runCommand(['serve', '--port', '0', ...args]);

describe('a served index of the previous segment format', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let index: string;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    index = path.join(dir, 'data', 'index');
    await writeIndex(index, [article('a1', ['place cells fire in one place'])]);
    await markSegmentOutdated(segmentFile(index, (await readManifest(index)).segments[0]!.name));
  });
  afterAll(() => cleanup?.());

  it('as the default index, is refused with the way to rebuild the demo index', () => {
    const started = serve('--data', path.join(dir, 'data'));
    expect(started.code).toBe(1);
    expect(started.stderr).toMatch(/segment format \d+ is not supported .*re-ingest the corpus into a new index directory/);
    expect(started.stderr).toContain(`; if it holds only the demo corpus, remove ${index} and start again: it is rebuilt\n`);
    expect(started.stderr).not.toMatch(/damaged/);
  });

  it('given with --index, is refused with the format\'s message only', () => {
    const started = serve('--data', path.join(dir, 'other-data'), '--index', index);
    expect(started.code).toBe(1);
    expect(started.stderr).toMatch(/segment format \d+ is not supported .*re-ingest the corpus into a new index directory\n/);
    expect(started.stderr).not.toContain('demo corpus');
  });
});
