/**
 * What the arguments alone decide (--help, --version, an option error, a file or index given that is not there)
 * is answered with the start decision's modules only: main.ts had imported the server, ingest and eval code
 * before deciding, so from the TypeScript sources `--help` waited seconds for modules it never used. The
 * command's modules load once a command is to run.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { article, tempDir, writeIndex } from '../search/helpers.js';

/**
 * The modules of src/ the command line loads, as paths relative to src/, and the npm packages it loads (the folders
 * under node_modules/), with its exit code.
 */
async function loadedModules(...args: string[]): Promise<{ code: number | null; modules: string[]; packages: string[] }> {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 'loaded');
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/cli/record-loaded-modules.ts', 'src/main.ts', ...args], {
      encoding: 'utf8',
      env: { ...process.env, LOADED_MODULES_FILE: file },
    });
    const src = pathToFileURL(path.resolve('src')).href + '/';
    const urls = readFileSync(file, 'utf8').split('\n');
    const packages = urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []);
    return {
      code: result.status,
      modules: urls.filter((url) => url.startsWith(src)).map((url) => url.slice(src.length)),
      packages: [...new Set(packages)],
    };
  } finally {
    await cleanup();
  }
}

/** One module of each command, and the module that runs them. */
const COMMAND_MODULES = ['run-command.ts', 'server.ts', 'corpus/ingest.ts', 'eval/evaluate.ts'];

/**
 * Engine modules the settings table had taken its defaults from (search/defaults.ts holds them now): with them the
 * decision loaded most of the engine, and Piscina's worker pool.
 */
const ENGINE_MODULES = ['search/pool.ts', 'search/merge.ts', 'search/index-writer.ts'];

describe('the start decision', () => {
  it.each([
    ['--help', ['--help'], 0],
    ['--version', ['ingest', '--version'], 0],
    ['an unknown option', ['ingest', '--inptu', 'x'], 2],
    ['an index to merge that is not there', ['ingest', '--index', '/nonexistent/litserve-index', '--merge'], 1],
    ['an eval file that is not there', ['eval', '--corpus', '/nonexistent/c.jsonl', '--queries', '/nonexistent/q.jsonl', '--qrels', '/nonexistent/r.tsv'], 1],
  ])('answers %s without loading any command', async (_, args, exitCode) => {
    const { code, modules, packages } = await loadedModules(...args);
    expect(code).toBe(exitCode);
    expect(modules).toContain('start-decision.ts');
    for (const module of [...COMMAND_MODULES, ...ENGINE_MODULES]) expect(modules).not.toContain(module);
    expect(packages).not.toContain('piscina');
    // Progress bars: only a command shows them.
    expect(modules).not.toContain('progress.ts');
    expect(packages).not.toContain('cli-progress');
  }, 60_000);

  it('loads the command once it is to run', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const indexDir = path.join(dir, 'index');
      await writeIndex(indexDir, [article('a1', ['place cells fire in CA1'])]);
      const { code, modules } = await loadedModules('ingest', '--index', indexDir, '--merge', '--quiet');
      expect(code).toBe(0);
      expect(modules).toEqual(expect.arrayContaining(['run-command.ts', 'corpus/ingest.ts']));
    } finally {
      await cleanup();
    }
  }, 60_000);
});
