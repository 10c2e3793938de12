/**
 * The bundle of src/start-decision.ts the single executable runs before it writes the files it carries
 * (scripts/build-binary.ts, src/runtime/start-decision-bundle.ts): it initialises without loading any
 * native addon or carried package, needs only Node's built-in modules, and answers --version, --help
 * and option errors as the command line does. (The executable itself: test/packaging/binary.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleStartDecision } from '../../scripts/build-binary.js';
import { loadStartDecision } from '../../src/runtime/start-decision-bundle.js';
import type { decideStart as DecideStart } from '../../src/start-decision.js';
import { tempDir } from '../search/helpers.js';

describe('the start decision bundled for the executable', () => {
  let cleanup: () => Promise<void>;
  let code: string;
  let decideStart: typeof DecideStart;
  const dlopen = vi.spyOn(process, 'dlopen');

  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir());
    const bundle = path.join(dir, 'start-decision.cjs');
    await bundleStartDecision(bundle);
    code = await readFile(bundle, 'utf8');
    decideStart = loadStartDecision(code);
  }, 60_000);
  afterAll(async () => {
    dlopen.mockRestore();
    await cleanup?.();
  });

  it('holds stand-ins, not the code, of the packages that load carried or native files', () => {
    // esbuild heads each bundled module with its path.
    expect(code).not.toMatch(/^\/\/ node_modules\/(piscina|node-gyp-build)/m);
    expect(code).toMatch(/^\/\/ not-loaded:piscina$/m);
    expect(code).toMatch(/^\/\/ not-loaded:node-gyp-build-optional-packages$/m);
    expect(dlopen).not.toHaveBeenCalled();
  });

  it('answers --version and --help with the executable usage, and option errors, without a command to run', () => {
    expect(decideStart(['ingest', '--version'], {}, true)).toEqual({ exit: 0, stdout: expect.stringMatching(/^litserve \d+\.\d+\.\d+ \(Node \d+\./) });
    const help = decideStart(['eval', '--help'], {}, true);
    expect(help).toMatchObject({ exit: 0, stdout: expect.stringMatching(/^usage: litserve eval \(--corpus/) });
    expect(decideStart(['serve', '--index-dir', '/srv/index'], {}, true)).toEqual({
      exit: 2,
      stderr: 'error: unknown option --index-dir for serve (did you mean --index?); see --help\n',
    });
    expect(decideStart(['--port', 'eighty'], {}, true)).toMatchObject({ exit: 2, stderr: expect.stringMatching(/^error: --port \/ PORT /) });
    expect(decideStart(['ingest', '--index', '/tmp/i'], {}, true)).toEqual({ exit: 2, stderr: 'error: ingest needs --input, --delete, --delete-file or --merge; see --help\n' });
    expect(decideStart(['ingest', '--index', '/tmp/i', '--merge'], {}, true)).toMatchObject({ run: 'ingest', config: { index: '/tmp/i', merge: true } });
    expect(dlopen).not.toHaveBeenCalled();
  });
});
