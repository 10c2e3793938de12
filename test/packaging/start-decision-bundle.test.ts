/**
 * The bundle of src/start-decision.ts the single executable runs before it writes the files it carries
 * (scripts/build-binary.ts, src/runtime/start-decision-bundle.ts): it initialises without loading any
 * native addon or carried package, needs only Node's built-in modules, and answers --version, --help,
 * option errors and missing files as the command line does. (The executable itself: test/packaging/binary.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleStartDecision } from '../../scripts/build-binary.js';
import { loadStartDecision } from '../../src/runtime/start-decision-bundle.js';
import type { decideStart as DecideStart } from '../../src/start-decision.js';
import { tempDir } from '../search/helpers.js';

describe('the start decision bundled for the executable', () => {
  let cleanup: () => Promise<void>;
  let dir: string;
  let code: string;
  let decideStart: typeof DecideStart;
  const dlopen = vi.spyOn(process, 'dlopen');

  beforeAll(async () => {
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

  it('holds no package, so none that loads carried or native files', () => {
    // esbuild heads each bundled module with its path. The settings take the engine's defaults from
    // src/search/defaults.ts, which imports nothing: Piscina and msgpackr's addon loader had been reached.
    expect(code).toMatch(/^\/\/ src\/start-decision\.ts$/m);
    expect(code).not.toMatch(/^\/\/ node_modules\//m);
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
    expect(dlopen).not.toHaveBeenCalled();
  });

  it('answers a missing file or index before anything is written, and runs a command whose files are there', async () => {
    const missing = path.join(dir, 'missing');
    expect(decideStart(['ingest', '--index', missing, '--merge'], {}, true)).toEqual({
      exit: 1,
      stderr: `error: no index in ${missing} (manifest.json not found): nothing to delete or merge; build one with: litserve ingest --input PATH --index ${missing}\n`,
    });
    expect(decideStart(['ingest', '--index', missing, '--delete-file', missing], {}, true)).toEqual({ exit: 1, stderr: `error: --delete-file ${missing}: no such file\n` });
    // An index serve or eval is given: they had found it missing only after the carried files were written.
    const aFile = path.join(dir, 'start-decision.cjs');
    for (const args of [['serve', '--index', missing], ['eval', '--index', missing, '--queries', aFile, '--qrels', aFile]]) {
      expect(decideStart(args, {}, true)).toEqual({
        exit: 1,
        stderr: `error: no index in ${missing} (manifest.json not found); build one with: litserve ingest --input PATH --index ${missing}\n`,
      });
    }
    expect(decideStart(['eval', '--corpus', missing, '--queries', missing, '--qrels', missing], {}, true)).toEqual({
      exit: 1,
      stderr: `error: --queries ${missing}: no such file; --qrels ${missing}: no such file; --corpus ${missing}: no such file or folder\n`,
    });
    const index = path.join(dir, 'index');
    await mkdir(index);
    await writeFile(path.join(index, 'manifest.json'), '{}');
    expect(decideStart(['ingest', '--index', index, '--merge'], {}, true)).toMatchObject({ run: 'ingest', config: { index, merge: true } });
    expect(decideStart(['serve', '--index', index], {}, true)).toMatchObject({ run: 'serve', config: { index } });
    expect(dlopen).not.toHaveBeenCalled();
  });
});
