/**
 * The guard's own trial (test/shared-worker-guard.test.ts): the fixture files, by name, one after another in one
 * worker that keeps its modules, as the suite's shared projects run them.
 */
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

class ByName extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  }
}

export default defineConfig({
  test: {
    include: ['test/shared-worker-guard/*.fixture.ts'],
    setupFiles: ['test/shared-worker-guard.ts'],
    isolate: false,
    pool: 'forks',
    maxWorkers: 1,
    sequence: { sequencer: ByName },
  },
});
