/**
 * Archive creation counts against one ledger row shared by every replica. A burst of creations spread
 * over replicas must queue for it, not fail: under SERIALIZABLE alone they conflicted, and a quarter of
 * 400 had given up after their retries (503).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { userIdentity } from '../../src/platform/identities.js';
import { DEFAULT_AUTH, type TestServer, createProject, startServer } from '../platform/helpers.js';

const USERS = Array.from({ length: 10 }, (_, i) => `user-${i}`);
const AUTH = { ...DEFAULT_AUTH, acls: { '/': { 'local/alice': ['*'], ...Object.fromEntries(USERS.map((user) => [`local/${user}`, ['resources/read']])) } } };
const REPLICAS = 4;
const CREATIONS = 400;

let replicas: TestServer[];
beforeAll(async () => {
  const sharedStore = `quota-burst-${Date.now()}`;
  replicas = [];
  for (let i = 0; i < REPLICAS; i++) replicas.push(await startServer({ auth: AUTH, sharedStore, maxArchivesPerCaller: CREATIONS }));
  await createProject(replicas[0]!.app, 'org', 'proj');
});
afterAll(async () => {
  for (const replica of replicas) await replica.close();
});

test(`${CREATIONS} creations at once over ${REPLICAS} replicas all succeed, and the ledger counts each once`, async () => {
  const definition = { resources: [{ '@type': 'Resource', resourceId: 'r1' }] };
  const results = await Promise.allSettled(
    Array.from({ length: CREATIONS }, (_, i) =>
      replicas[i % REPLICAS]!.archives.create({ org: 'org', project: 'proj' }, `burst-${i}`, definition, userIdentity('local', USERS[i % USERS.length]!, [])),
    ),
  );
  const failures = results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason));
  expect(failures).toEqual([]);
  const { store } = replicas[0]!.platform;
  expect(await store.table('archive-holds').count()).toBe(CREATIONS);
  const holds = await store.table<{ bytes: number }>('archive-holds').range();
  expect(await store.table('archive-totals').get('stored-bytes')).toBe(holds.reduce((sum, hold) => sum + hold.value.bytes, 0));
}, 120_000);
