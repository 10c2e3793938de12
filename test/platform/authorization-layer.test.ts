/**
 * Every permission check of the /v1 API lives in the domain services
 * (src/platform, src/archive), so a route cannot forget one: route modules
 * never consult the ACLs themselves. The access-control test
 * (test/reliability/access-control.test.ts) proves the checks' behaviour.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROUTES = fileURLToPath(new URL('../../src/http/platform/', import.meta.url));

describe('authorisation layer', () => {
  test('no /v1 route module checks permissions itself', async () => {
    const modules = (await readdir(ROUTES)).filter((name) => name.endsWith('.ts'));
    expect(modules.length).toBeGreaterThan(5);
    for (const name of modules) {
      const source = await readFile(`${ROUTES}${name}`, 'utf8');
      expect({ name, checks: source.match(/acls\.(require|has)\(|\.require\(\s*(identity|callerOf)|authorize\(/g) ?? [] }).toEqual({ name, checks: [] });
    }
  });
});
