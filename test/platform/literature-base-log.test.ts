/**
 * Every start says under which base the literature project's ids are, and warns when --public-url moved since
 * their base was fixed (ids keep it, links follow the new URL): the start-up log had said neither.
 */
import { expect, test } from 'vitest';
import { startServer } from './helpers.js';

test('the ids base is said at start, and a moved public URL is warned of', async () => {
  const lines: string[] = [];
  const logger = { info: (m: string) => void lines.push(`info ${m}`), warn: (m: string) => void lines.push(`warn ${m}`), error: () => undefined };
  const first = await startServer({ baseUri: 'http://first.test', logger });
  await first.stop();
  expect(lines).toContain('info literature project literature/articles: article ids under http://first.test/v1/resources/literature/articles/_/, links under http://first.test');
  lines.length = 0;
  const moved = await startServer({ dataDir: first.dataDir, baseUri: 'https://lit.example.org/base', logger });
  try {
    expect(lines).toContain(
      'warn literature project literature/articles: article ids stay under http://first.test/v1/resources/literature/articles/_/, fixed at its first start, ' +
        'while links follow --public-url https://lit.example.org/base (ids stored in archives and resources stay valid; docs/DEPLOY.md says how to start over)',
    );
  } finally {
    await moved.close();
  }
});
