/**
 * Creating an organization or a project also grants its creator every
 * permission on it. Both must be one transaction: a process that dies between
 * them would leave an organization or project that exists (so creating it
 * again is 409) but that its creator may not write to (403), and it was never
 * acknowledged. The death is simulated where it would strike, by making the
 * owner grant fail; then the store is reopened as after a restart: nothing of
 * the creation may be there, and creating it again must work and grant the
 * owner.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Platform, openPlatform } from '../../src/platform/index.js';
import { MemoryLiterature } from '../platform/helpers.js';
import { tempDir } from '../search/helpers.js';
import { defaultOf } from '../../src/config.js';

const TOKEN = 'creator-token';

async function open(dataDir: string, authFile: string): Promise<Platform> {
  return openPlatform({ dataDir, authFile, literatureProject: 'literature/articles', literature: new MemoryLiterature([]), maxFileBytes: defaultOf('maxUploadBytes') });
}

/** Runs `create` with the owner grant failing, as if the process died right before it. */
async function dyingBeforeTheGrant(platform: Platform, create: () => Promise<unknown>): Promise<void> {
  const grant = platform.acls.grantOwner;
  platform.acls.grantOwner = async () => {
    throw new Error('the process dies here');
  };
  try {
    await expect(create()).rejects.toThrow('the process dies here');
  } finally {
    platform.acls.grantOwner = grant;
  }
}

describe('a creation and its owner grant are one write', () => {
  it('an organization and a project are created with their owner grant or not at all', async () => {
    const { dir, cleanup } = await tempDir('litserve-crash-owner-');
    const dataDir = path.join(dir, 'data');
    const authFile = path.join(dir, 'auth.json');
    // The creator may create organizations and projects, and nothing else but through owning them.
    await writeFile(
      authFile,
      JSON.stringify({ tokens: { [TOKEN]: { realm: 'local', subject: 'creator' } }, acls: { '/': { 'local/creator': ['organizations/create', 'projects/create'] } } }),
    );
    let platform = await open(dataDir, authFile);
    try {
      const creator = await platform.identify(`Bearer ${TOKEN}`);

      await dyingBeforeTheGrant(platform, () => platform.orgs.save('lab', undefined, undefined, creator));
      await platform.close();
      platform = await open(dataDir, authFile);
      expect(await platform.orgs.get('lab'), 'an organization whose creation died half-way').toBeUndefined();
      await platform.orgs.save('lab', undefined, undefined, creator);
      expect(platform.acls.has(creator, 'organizations/write', '/lab')).toBe(true);

      const ref = { org: 'lab', project: 'a' };
      await dyingBeforeTheGrant(platform, () => platform.projects.save(ref, {}, undefined, creator));
      await platform.close();
      platform = await open(dataDir, authFile);
      expect(await platform.projects.get(ref), 'a project whose creation died half-way').toBeUndefined();
      await platform.projects.save(ref, {}, undefined, creator);
      expect(platform.acls.has(creator, 'resources/write', '/lab/a')).toBe(true);
    } finally {
      await platform.close();
      await cleanup();
    }
  });
});
