/**
 * Vitest global setup of the `postgresql` projects (the shared one and the isolated one): one cluster
 * each for the whole run. Its URL is provided to that project's tests only (`inject('postgresUrl')`); an environment variable would
 * leak into the default project's processes too and move its platform tests off LMDB.
 */
import type { TestProject } from 'vitest/node';
import { startCluster } from './cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default function setup(project: TestProject): () => void {
  const cluster = startCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
