/** Vitest global setup of the `postgresql` project: one cluster for the whole run, its URL handed to the test processes. */
import { startCluster } from './cluster.js';

export default function setup(): () => void {
  const cluster = startCluster();
  process.env.LITSERVE_TEST_POSTGRES = cluster.url;
  return () => cluster.stop();
}
