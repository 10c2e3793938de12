/** The page's server side, without a browser: static files, the browser redirect, /docs, CORS and its setting. */
import net from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { loadUiAssets } from '../../src/http/ui/assets.js';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { rawExchange } from '../http/raw-exchange.js';

const ORIGIN = 'https://front.example:8443';

describe('the page and /docs', () => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await fixtureApp();
  });
  afterAll(() => fixture.close());

  it('GET / answers API clients with the status and sends browsers to the page, by a relative address (kept under a proxy\'s path)', async () => {
    const api = await fixture.app.inject({ url: '/' });
    expect(api.json()).toEqual({ status: 'ok' });
    const browser = await fixture.app.inject({ url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(browser.statusCode).toBe(302);
    expect(browser.headers.location).toBe('ui/');
    // Both answers depend on Accept, which a shared cache must know.
    for (const response of [api, browser]) expect(response.headers.vary).toBe('Accept');
  });

  it.each([
    // Browsers: text/html named at 1, everything else lower (Chromium's, Firefox's); a bare or upper-case text/html.
    ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7', 302],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 302],
    ['text/html', 302],
    ['TEXT/HTML', 302],
    ['text/html, */*', 302],
    ['application/json;q=0.5, text/html', 302],
    // API clients: no header, curl's */*, JSON named, text/html refused (q=0) or tied with JSON.
    [undefined, 200],
    ['*/*', 200],
    ['application/json', 200],
    ['text/html;q=0', 200],
    ['text/html;q=0, */*', 200],
    ['application/json, text/html', 200],
    ['text/html, application/json', 200],
    ['text/html;q=0.5, application/json', 200],
    ['text/*, application/json', 200],
  ])('GET / with Accept %s: %d (the page only when text/html is preferred to JSON, a tie JSON\'s)', async (accept, status) => {
    const response = await fixture.app.inject({ url: '/', headers: accept === undefined ? {} : { accept } });
    expect({ accept, status: response.statusCode }).toEqual({ accept, status });
    if (status === 200) expect(response.json()).toEqual({ status: 'ok' });
  });

  it('serves the page with a policy that forbids every other host, gzip on request, and 304 on a matching ETag', async () => {
    const page = await fixture.app.inject({ url: '/ui/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.body).toContain('aria-label="Search"');
    const zipped = await fixture.app.inject({ url: '/ui/js/main.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const plain = await fixture.app.inject({ url: '/ui/js/main.js' });
    expect(gzipSync(plain.rawPayload).length).toBeGreaterThan(0);
    expect(zipped.rawPayload.equals(plain.rawPayload)).toBe(false);
    const again = await fixture.app.inject({ url: '/ui/js/main.js', headers: { 'if-none-match': plain.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('sends gzip only when Accept-Encoding gives it a q-value above 0 and no lower than identity\'s (RFC 9110 §12.5.3)', async () => {
    const plain = (await fixture.app.inject({ url: '/ui/js/main.js' })).rawPayload;
    const cases: [string | undefined, 'gzip' | 'identity'][] = [
      [undefined, 'identity'],
      ['', 'identity'],
      ['gzip, deflate, br', 'gzip'],
      ['x-gzip', 'gzip'],
      ['br, *', 'gzip'],
      ['gzip;q=0.2', 'gzip'],
      ['GZIP;Q=0.5, identity;q=0.5', 'gzip'],
      ['gzip;q=0, identity', 'identity'],
      ['gzip;q=0', 'identity'],
      ['gzip;q=0.5, identity', 'identity'],
      ['br, *;q=0', 'identity'],
      // A weight that is no number is ignored, as on /v1's Accept (weighted-list.ts): gzip is listed, so accepted.
      ['gzip;q=nonsense', 'gzip'],
      ['gzip;q=nonsense, identity;q=0.5', 'gzip'],
      ['identity;q=0', 'identity'],
      // Nothing acceptable: sent as is rather than refused, as §12.5.3 says a server should.
      ['gzip;q=0, identity;q=0', 'identity'],
      ['*;q=0', 'identity'],
    ];
    const sent = [];
    for (const [acceptEncoding] of cases) {
      const response = await fixture.app.inject({ url: '/ui/js/main.js', headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });
      const coding = response.headers['content-encoding'] ?? 'identity';
      sent.push([acceptEncoding, coding]);
      expect((coding === 'gzip' ? gunzipSync(response.rawPayload) : response.rawPayload).equals(plain)).toBe(true);
    }
    expect(sent).toEqual(cases);
  });

  it('gives the gzip and the plain form each its own ETag, and answers 304 only for the form the request selects', async () => {
    const zipped = await fixture.app.inject({ url: '/ui/js/main.js', headers: { 'accept-encoding': 'gzip' } });
    const plain = await fixture.app.inject({ url: '/ui/js/main.js' });
    for (const response of [zipped, plain]) expect(response.headers.vary).toBe('Accept-Encoding');
    expect(zipped.headers.etag).toMatch(/^"[^"]+"$/);
    expect(plain.headers.etag).toMatch(/^"[^"]+"$/);
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    const revalidate = (etag: string, acceptEncoding?: string) =>
      fixture.app.inject({ url: '/ui/js/main.js', headers: { 'if-none-match': etag, ...(acceptEncoding && { 'accept-encoding': acceptEncoding }) } });
    const held = await revalidate(zipped.headers.etag as string, 'gzip');
    expect([held.statusCode, held.headers.etag]).toEqual([304, zipped.headers.etag]);
    // A client holding the gzip form that now asks for the plain one gets it, not a 304 for bytes it cannot use.
    const other = await revalidate(zipped.headers.etag as string);
    expect([other.statusCode, other.headers.etag, other.rawPayload.equals(plain.rawPayload)]).toEqual([200, plain.headers.etag, true]);
    const otherWay = await revalidate(plain.headers.etag as string, 'gzip');
    expect([otherWay.statusCode, otherWay.headers['content-encoding']]).toEqual([200, 'gzip']);
  });

  it('compares If-None-Match weakly (RFC 9110 §13.1.2): a weak tag, a list holding the tag, and `*` are 304; other tags are 200', async () => {
    const etag = (await fixture.app.inject({ url: '/ui/' })).headers.etag as string;
    const statusFor = async (ifNoneMatch: string) => (await fixture.app.inject({ url: '/ui/', headers: { 'if-none-match': ifNoneMatch } })).statusCode;
    for (const header of [etag, `W/${etag}`, `"stale", ${etag}`, `W/"stale",W/${etag}`, '*', ` * `]) {
      expect({ header, status: await statusFor(header) }).toEqual({ header, status: 304 });
    }
    for (const header of ['"stale"', 'W/"stale"', `"${etag}"`, etag.slice(1, -1), `"stale,${etag.slice(1)}`, '"*"']) {
      expect({ header, status: await statusFor(header) }).toEqual({ header, status: 200 });
    }
  });

  it('serves only its own files: unknown names and paths out of the folder are 404 in the API vocabulary', async () => {
    for (const url of ['/ui/nope.js', '/ui/js/', '/ui/js/nope.js', '/ui/../package.json', '/ui/%2e%2e/package.json', '/ui/js/../../../package.json', '/ui/%2e%2e%2fsrc%2fapp.ts']) {
      const response = await fixture.app.inject({ url });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 404 });
      expect(response.body).not.toContain('"name": "litserve"');
    }
  });

  it('the address typed without its last slash leads to the page, its query string kept, by a relative address', async () => {
    // `ui/` read against `…/ui` is `…/ui/`, whatever path a proxy serves the server under.
    for (const [url, location] of [['/ui', 'ui/'], ['/ui?q=grid%20cells&mode=list', 'ui/?q=grid%20cells&mode=list']]) {
      const response = await fixture.app.inject({ url, headers: { accept: 'text/html' } });
      expect({ url, status: response.statusCode, location: response.headers.location }).toEqual({ url, status: 301, location });
    }
  });

  it('redirects a request whose target is in absolute form to the page on this server, its query string kept', async () => {
    await fixture.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (fixture.app.server.address() as net.AddressInfo).port;
    // Absolute form (RFC 9112 §3.2.2) cannot be sent through inject, which keeps only the path: a raw socket.
    const locationFor = async (target: string) => {
      const answer = await rawExchange(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\nConnection: close\r\n\r\n`);
      return answer.status === 301 ? answer.headers.location : answer.text.slice(0, 200);
    };
    expect(await locationFor('http://evil.example/ui?q=1')).toBe('ui/?q=1');
    expect(await locationFor('HTTP://evil.example:8080/ui')).toBe('ui/');
    expect(await locationFor('/ui?q=grid%20cells')).toBe('ui/?q=grid%20cells');
  });

  it('/docs is the API reference page, which renders /openapi.json', async () => {
    const docs = await fixture.app.inject({ url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('src="ui/js/docs.js"');
    expect((await fixture.app.inject({ url: '/ui/js/docs.js' })).body).toContain("fetch(serverUrl('/openapi.json'))");
  });

  it('every script, style, icon and link the HTML names is served by the server itself, by an address relative to the page', async () => {
    for (const [name, servedAt] of [['index.html', '/ui/'], ['docs.html', '/docs']] as const) {
      const html = (await loadUiAssets()).get(name)!.body.toString();
      const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(references.length).toBeGreaterThan(2);
      for (const reference of references.filter((r) => !r.startsWith('#') && !r.startsWith('data:'))) {
        // Neither from the root (`/ui/…`) nor on another host: under a proxy's path, either would leave it.
        const url = new URL(reference, `http://server${servedAt}`);
        const response = await fixture.app.inject({ url: url.pathname });
        expect({ name, reference, fromRoot: reference.startsWith('/'), origin: url.origin, status: response.statusCode }).toEqual({
          name,
          reference,
          fromRoot: false,
          origin: 'http://server',
          status: 200,
        });
      }
    }
  });

  it('does not count the page\'s own files against --rate-limit, only its API requests', async () => {
    const limited = await fixtureApp(undefined, {}, { flags: ['--rate-limit', '5'] });
    try {
      const html = (await loadUiAssets()).get('index.html')!.body.toString();
      // The page's own files (`js/main.js`), as the server sees them (`/ui/js/main.js`); not its links to other pages.
      const files = [...html.matchAll(/(?:src|href)="([^"#.:][^"]*\.(?:js|css))"/g)].map((m) => new URL(m[1]!, 'http://server/ui/').pathname);
      expect(files.length).toBeGreaterThan(5);
      // Three loads of the page and /docs: far more files than the budget of 5.
      for (let load = 0; load < 3; load++) {
        for (const url of ['/ui/', '/docs', ...files]) {
          const response = await limited.app.inject({ url });
          expect({ url, status: response.statusCode }).toEqual({ url, status: 200 });
        }
      }
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await limited.app.inject({ url: '/retrieval/article_count' })).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('keeps the page under 150 KB of JavaScript, gzipped', async () => {
    const assets = await loadUiAssets();
    const js = [...assets].filter(([name]) => name.endsWith('.js'));
    expect(js.length).toBeGreaterThan(3);
    expect(js.reduce((sum, [, asset]) => sum + asset.gzip.length, 0)).toBeLessThan(150 * 1024);
  });
});

describe('CORS (--cors-origins)', () => {
  let fixture: Fixture;
  beforeAll(async () => {
    // An auth file that grants anonymous nothing: a preflight (which carries no token) must still be answered.
    fixture = await fixtureApp(undefined, {}, { auth: { tokens: { 'cors-test-token': { realm: 'local', subject: 'u' } }, acls: { '/': { 'local/u': ['*'] } } }, flags: ['--cors-origins', `${ORIGIN}, https://other.example`] });
  });
  afterAll(() => fixture.close());

  const preflight = (url: string, origin = ORIGIN) =>
    fixture.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });

  it('answers preflights of the literature routes and /v1 for a listed origin, before authentication', async () => {
    for (const url of ['/retrieval/?query=x', '/retrieval/article_count', '/suggestions/author?name=a', '/qa/streamed_generative', '/settings', '/v1/archives/lab/a', '/v1/projects']) {
      const response = await preflight(url);
      expect({ url, status: response.statusCode }).toEqual({ url, status: 204 });
      expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(response.headers['access-control-allow-methods']).toContain('POST');
      expect(response.headers['access-control-allow-headers']).toContain('authorization');
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expect(response.headers.vary).toContain('Origin');
    }
  });

  it('gives no CORS headers to an origin not listed, nor on routes that are not shared', async () => {
    const stranger = await preflight('/retrieval/article_count', 'https://evil.example');
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    // No OPTIONS route there: 405 with the methods the path takes, as for any method a path does not take.
    expect(stranger.statusCode).toBe(405);
    const page = await fixture.app.inject({ url: '/ui/', headers: { origin: ORIGIN } });
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('marks real responses (errors and event streams included) readable by the listed origin', async () => {
    const auth = { authorization: 'Bearer cors-test-token', origin: 'https://other.example' };
    const count = await fixture.app.inject({ url: '/retrieval/article_count', headers: auth });
    expect(count.statusCode).toBe(200);
    expect(count.headers['access-control-allow-origin']).toBe('https://other.example');
    expect(count.headers['access-control-expose-headers']).toContain('retry-after');
    const denied = await fixture.app.inject({ url: '/retrieval/article_count', headers: { origin: ORIGIN } });
    expect(denied.statusCode).toBe(403);
    expect(denied.headers['access-control-allow-origin']).toBe(ORIGIN);
    const stream = await fixture.app.inject({
      method: 'POST',
      url: '/qa/streamed_generative',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: { query: 'place cells' },
    });
    expect(stream.headers['content-type']).toContain('text/event-stream');
    expect(stream.headers['access-control-allow-origin']).toBe('https://other.example');
  });

  it('is off by default', async () => {
    const plain = await fixtureApp();
    try {
      const response = await plain.app.inject({ method: 'OPTIONS', url: '/retrieval/article_count', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it('`*` allows any origin, still without credentials', async () => {
    const any = await fixtureApp(undefined, {}, { flags: ['--cors-origins', '*'] });
    try {
      const response = await any.app.inject({ url: '/retrieval/article_count', headers: { origin: 'https://anywhere.example' } });
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    } finally {
      await any.close();
    }
  });

  it('refuses settings that are not origins', () => {
    expect(loadConfig(['--cors-origins', 'https://a.example, http://localhost:5173'], {}).corsOrigins).toEqual(['https://a.example', 'http://localhost:5173']);
    expect(loadConfig([], { CORS_ORIGINS: 'https://a.example' }).corsOrigins).toEqual(['https://a.example']);
    expect(loadConfig([], {}).corsOrigins).toEqual([]);
    for (const bad of ['https://a.example/path', 'ftp://a.example', 'a.example', 'https://a.example/']) {
      expect(() => loadConfig(['--cors-origins', bad], {})).toThrow(ConfigError);
    }
  });
});
