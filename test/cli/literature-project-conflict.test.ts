/**
 * `serve --literature-project` naming a project users created on this data dir exits 1 at start with a
 * message naming the setting, the project and the way out, instead of serving the literature in its place.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/platform/index.js';
import { openServices } from '../../src/services.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { COMPILED_MAIN } from '../compiled-server.js';
import { NO_ARTICLES } from '../../src/platform/literature.js';


describe('a start whose literature project is a user project', () => {
  it('exits 1 naming --literature-project, the project and what to do', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeIndex(`${dir}/index`, [article('a1', ['place cells fire in one place'])]);
      const services = await openServices({ dataDir: dir, authFile: null, archiveTtlMs: 3_600_000, literatureProject: 'literature/articles', literature: NO_ARTICLES });
      await services.platform.orgs.save('neuro', undefined, undefined, OPERATOR);
      await services.platform.projects.save({ org: 'neuro', project: 'lab1' }, {}, undefined, OPERATOR);
      await services.close();

      const args = [COMPILED_MAIN, 'serve', '--data', dir, '--port', '0', '--search-threads', '0'];
      const result = spawnSync(process.execPath, [...args, '--literature-project', 'neuro/lab1'], { encoding: 'utf8', timeout: 60_000 });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        "error: --literature-project / LITERATURE_PROJECT names 'neuro/lab1', a project users created (rev 1); serving the literature there would hide its resources and files. Choose another label for --literature-project, or delete that project first",
      );
      expect(result.stdout).not.toContain('Server listening');
    } finally {
      await cleanup();
    }
  }, 90_000);
});
