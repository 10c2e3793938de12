/**
 * A platform opened directly (no HTTP) for service tests: the identities of
 * DEFAULT_AUTH (alice may do everything, bob and carol are plain users,
 * anonymous may read) and a two-article literature. Calls are awaited, so the
 * tests hold whether a service answers at once or with a promise.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPlatform, type Identity, type Platform } from '../../../src/platform/index.js';
import { BASE, DEFAULT_AUTH, MemoryLiterature, TOKENS, article } from '../helpers.js';
import { defaultOf } from '../../../src/config.js';

export interface PlatformFixture {
  platform: Platform;
  alice: Identity;
  bob: Identity;
  anonymous: Identity;
  close(): Promise<void>;
}

export async function openTestPlatform(): Promise<PlatformFixture> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'platform-service-'));
  const authFile = path.join(dataDir, 'auth.json');
  await writeFile(authFile, JSON.stringify(DEFAULT_AUTH));
  const platform = await openPlatform({
    dataDir,
    authFile,
    literatureProject: 'literature/articles',
    literature: new MemoryLiterature([article('demo-000'), article('demo-001')]),
    baseUri: BASE,
    renderThreads: 0,
    maxFileBytes: defaultOf('maxUploadBytes'),
  });
  return {
    platform,
    alice: await platform.identify(`Bearer ${TOKENS.alice}`),
    bob: await platform.identify(`Bearer ${TOKENS.bob}`),
    anonymous: await platform.identify(undefined),
    close: async () => {
      await platform.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The status and type of a platform rejection (what the HTTP layer turns into a response). */
export async function rejection(call: () => unknown): Promise<{ status: number; type: string }> {
  try {
    await call();
  } catch (error) {
    const { status, type } = error as { status: number; type: string };
    return { status, type };
  }
  throw new Error('expected the call to be refused');
}
