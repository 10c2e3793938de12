/**
 * `workerModule`: the worker beside its pool, compiled or from source, or from the compiled copy LITSERVE_COMPILED_SRC names;
 * `workerExecArgv`: how its threads load it.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { Worker } from 'node:worker_threads';
import { COMPILED_SRC_ENV, workerExecArgv, workerModule } from '../../src/runtime/worker-module.js';
import { COMPILED_DIR } from '../compiled-server.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const poolAt = (file: string) => pathToFileURL(path.join(SRC, file)).href;

describe('workerModule', () => {
  it('is the TypeScript source beside a pool run from source, and the compiled module beside a compiled pool', () => {
    vi.stubEnv(COMPILED_SRC_ENV, undefined);
    expect(workerModule('worker', poolAt('search/pool.ts'), 'search-worker.cjs')).toBe(path.join(SRC, 'search/worker.ts'));
    expect(workerModule('render-worker', pathToFileURL('/opt/litserve/dist/platform/renderer.js').href, 'render-worker.cjs')).toBe('/opt/litserve/dist/platform/render-worker.js');
  });

  it('is the same module in the compiled copy of src/ that LITSERVE_COMPILED_SRC names, for a pool run from source only', () => {
    vi.stubEnv(COMPILED_SRC_ENV, '/tmp/compiled-copy');
    expect(workerModule('worker', poolAt('search/pool.ts'), 'search-worker.cjs')).toBe('/tmp/compiled-copy/search/worker.js');
    expect(workerModule('render-worker', poolAt('platform/renderer.ts'), 'render-worker.cjs')).toBe('/tmp/compiled-copy/platform/render-worker.js');
    expect(workerModule('render-worker', pathToFileURL('/opt/litserve/dist/platform/renderer.js').href, 'render-worker.cjs')).toBe('/opt/litserve/dist/platform/render-worker.js');
  });
});

describe('workerExecArgv', () => {
  it('loads sources through tsx, and gives compiled ES-module workers no require() of ES modules (the executable\'s CommonJS ones keep theirs)', () => {
    expect(workerExecArgv('/repo/src/search/worker.ts')).toEqual(['--import', 'tsx']);
    expect(workerExecArgv('/opt/litserve/dist/search/worker.js')).toEqual(['--no-experimental-require-module']);
    expect(workerExecArgv('/cache/litserve/abc/search-worker.cjs')).toEqual([]);
  });

  it("makes a compiled worker's require() fail at once in its thread, so Piscina imports it instead", async () => {
    // As the tests' pools run it: compiled once for the run (test/compiled-server.ts).
    const renderWorker = path.join(COMPILED_DIR, 'platform/render-worker.js');
    const code = `const { parentPort, workerData } = require('node:worker_threads');
      try { require(workerData); parentPort.postMessage('required'); } catch (error) { parentPort.postMessage(error.code); }`;
    const answer = (execArgv: string[]) =>
      new Promise<unknown>((resolve, reject) => {
        const worker = new Worker(code, { eval: true, execArgv, workerData: renderWorker });
        worker.once('message', (message) => void worker.terminate().then(() => resolve(message)));
        worker.once('error', reject);
      });
    expect(await answer(workerExecArgv(renderWorker))).toBe('ERR_REQUIRE_ESM');
  });
});
