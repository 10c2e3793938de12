/**
 * `npm start` (and `npm run ingest` / `npm run eval`): runs the compiled
 * server in dist/, building it first when it is missing or older than its
 * sources, so that `npm ci && npm start` works on a fresh checkout. The
 * server runs in this same process (no second Node process).
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { buildDist, distIsCurrent, DIST } from './build-dist.mjs';

if (!(await distIsCurrent())) {
  process.stderr.write('dist/ is missing or older than src/: compiling the server (npm run build)\n');
  await buildDist();
}
await import(pathToFileURL(path.join(DIST, 'main.js')).href);
