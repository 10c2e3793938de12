/**
 * A browser sent to `/` is redirected to the page. Behind a proxy that strips a prefix and maps
 * `https://host/base` (no last slash) to `/`, the relative `ui/` would lead out of the prefix, so the
 * X-Forwarded-Prefix of a --trust-proxy proxy makes the Location `/base/ui/`. Anyone else's header,
 * and any header that is not a plain absolute path, leaves the relative redirect.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from './app-fixture.js';

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

/** Where a browser asking for `/` from `sender` is sent. */
async function pageLocation(sender: string, prefix?: string): Promise<string | undefined> {
  const headers: Record<string, string> = { accept: 'text/html' };
  if (prefix !== undefined) headers['x-forwarded-prefix'] = prefix;
  const response = await fixture!.app.inject({ method: 'GET', url: '/', remoteAddress: sender, headers });
  expect(response.statusCode).toBe(302);
  return response.headers.location as string | undefined;
}

describe('X-Forwarded-Prefix on the redirect of / to the page', () => {
  it('leads under the prefix a trusted proxy names', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--trust-proxy', '10.0.0.0/8'] });
    expect(await pageLocation('10.0.0.1', '/base')).toBe('/base/ui/');
    expect(await pageLocation('10.0.0.1', '/base/')).toBe('/base/ui/');
    expect(await pageLocation('10.0.0.1', '/team%20a/lit')).toBe('/team%20a/lit/ui/');
    // Without the header: relative, as before.
    expect(await pageLocation('10.0.0.1')).toBe('ui/');
  });

  it('ignores the header from a sender not in --trust-proxy, and without --trust-proxy', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--trust-proxy', '10.0.0.0/8'] });
    expect(await pageLocation('192.0.2.9', '/base')).toBe('ui/');
    await fixture.close();
    fixture = await fixtureApp(undefined, {}, { auth: null });
    expect(await pageLocation('10.0.0.1', '/base')).toBe('ui/');
  });

  it('ignores a prefix that is not a plain absolute path: the redirect never leaves the site', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--trust-proxy', '10.0.0.0/8'] });
    for (const prefix of ['//evil.example', 'https://evil.example', 'base', '/a//b', '/a/../b', '/a/%2E%2e', '/a b', '/base, /other', '', '/\\evil.example']) {
      expect(await pageLocation('10.0.0.1', prefix), prefix).toBe('ui/');
    }
  });

  it('leaves API clients their status', async () => {
    fixture = await fixtureApp(undefined, {}, { auth: null, flags: ['--trust-proxy', '10.0.0.0/8'] });
    const response = await fixture.app.inject({ method: 'GET', url: '/', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-prefix': '/base' } });
    expect(response.json()).toEqual({ status: 'ok' });
  });
});
