import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { postgresUnavailable } from './test/postgres/cluster.js';

const shared = { testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' as const };

// The platform and archive suites run a second time against PostgreSQL (one throw-away cluster for the run),
// with the replica tests, wherever PostgreSQL can be started.
const postgresMissing = postgresUnavailable();
if (postgresMissing !== null) console.warn(`SKIPPED: the PostgreSQL platform-store tests (${postgresMissing}).`);

// Vitest's default is one file at a time on a 2-core machine (cores - 1). Much of this suite waits on
// child processes, browsers and servers, so two files at once take about a fifth less time there
// (1,383 s against about 1,670 s for the same files, one run each).
const maxWorkers = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    maxWorkers,
    projects: [
      { test: { ...shared, name: 'default', include: ['test/**/*.test.ts'], exclude: ['test/**/*.postgres.test.ts', '**/node_modules/**'] } },
      ...(postgresMissing === null
        ? [
            {
              test: {
                ...shared,
                name: 'postgresql',
                include: ['test/platform/**/*.test.ts', 'test/archive/**/*.test.ts', 'test/**/*.postgres.test.ts'],
                // The ZIP writer's own tests read no store (one writes an entry past 4 GiB): once is enough.
                exclude: ['test/archive/zip*.test.ts', '**/node_modules/**'],
                globalSetup: ['test/postgres/global-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
