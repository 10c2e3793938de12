import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { COMPILED_SRC_ENV } from './src/runtime/worker-module.js';
import { COMPILED_DIR } from './test/compiled-server.js';
import { postgresUnavailable } from './test/postgres/cluster.js';

// `expect.poll` waits 10 s rather than vitest's 1 s: a page, a server or a child process may take more than a second to
// get there on a loaded machine (a browser test failed so with three files at once on 2 cores). Only a failing poll waits.
// Every project's child processes and worker threads run the server compiled once for the run (test/compiled-server.ts).
const compileForChildren = 'test/compiled-server.global-setup.ts';
const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
  expect: { poll: { timeout: 10_000 } },
  env: { [COMPILED_SRC_ENV]: COMPILED_DIR },
};

// Vitest's default is one file at a time on a 2-core machine (cores - 1). Much of this suite waits on
// child processes, browsers and servers, so two files at once take about a fifth less time there
// (1,383 s against about 1,670 s for the same files, one run each).
const maxWorkers = Math.max(2, availableParallelism() - 1);

const testFiles = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file}`);
// A file that replaces a module (`vi.mock`) needs a module registry of its own; one that measures its process's memory
// needs a process no other file has used. Read once: the PostgreSQL projects take some files of the default ones again.
const needsOwnProcess = new Set(testFiles.filter((file) => /\bvi\.(?:do)?mock\(|process\.memoryUsage\(/.test(readFileSync(file, 'utf8'))));

/**
 * The files `belongs` picks, as two projects. Most run one after another in a worker that keeps its modules, so the
 * server's few hundred modules are evaluated once per worker rather than once per file (about 0.9 s a file), and
 * test/shared-worker-guard.ts fails a file that leaves the process changed; the others run isolated, each in a fresh
 * process.
 */
function sharedAndIsolated(name: string, belongs: (file: string) => boolean, globalSetup: string[] = []): TestProjectInlineConfiguration[] {
  const files = testFiles.filter(belongs);
  const options = { globalSetup: [compileForChildren, ...globalSetup] };
  const isolated = files.filter((file) => needsOwnProcess.has(file));
  const projects: TestProjectInlineConfiguration[] = [
    { test: { ...shared, ...options, name, include: files.filter((file) => !needsOwnProcess.has(file)), isolate: false, setupFiles: ['test/shared-worker-guard.ts'] } },
  ];
  if (isolated.length > 0) projects.push({ test: { ...shared, ...options, name: `${name} (isolated)`, include: isolated, isolate: true } });
  return projects;
}

// The platform and archive suites run a second time against PostgreSQL (a throw-away cluster per project), with the
// replica tests, wherever PostgreSQL can be started. The ZIP writer's own tests read no store (one writes an entry
// past 4 GiB), nor do the embedded store's own (test/platform/store/lmdb-*): once is enough.
const postgresMissing = postgresUnavailable();
if (postgresMissing !== null) console.warn(`SKIPPED: the PostgreSQL platform-store tests (${postgresMissing}).`);
const storeless = (file: string) => /^test\/archive\/zip[^/]*$/.test(file) || /^test\/platform\/store\/lmdb-[^/]*$/.test(file);
const onPostgresql = (file: string) => file.endsWith('.postgres.test.ts') || (/^test\/(platform|archive)\//.test(file) && !storeless(file));

export default defineConfig({
  test: {
    maxWorkers,
    projects: [
      ...sharedAndIsolated('default', (file) => !file.endsWith('.postgres.test.ts')),
      ...(postgresMissing === null ? sharedAndIsolated('postgresql', onPostgresql, ['test/postgres/global-setup.ts']) : []),
    ],
  },
});
