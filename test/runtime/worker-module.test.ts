/** `workerModule`: the worker beside its pool, compiled or from source, or from the compiled copy LITSERVE_COMPILED_SRC names. */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { COMPILED_SRC_ENV, workerModule } from '../../src/runtime/worker-module.js';

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
