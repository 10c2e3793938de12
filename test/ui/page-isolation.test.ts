/**
 * The page and /docs hold an access token: a page of another site that opened them must keep no handle on their
 * window (Cross-Origin-Opener-Policy), with which it could later send the tab to a look-alike page. Checked in
 * Chromium: the opener's handle is closed at once, while the page itself loads and works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, type Fixture } from '../http/app-fixture.js';
import { HAS_CHROMIUM, SKIP_REASON, launchBrowser, startServer, type Browser, type UiServer } from './browser.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';

describe('the page\'s opener policy', () => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await fixtureApp();
  });
  afterAll(() => fixture.close());

  it('the page and /docs are sent with Cross-Origin-Opener-Policy: same-origin', async () => {
    for (const url of ['/ui/', '/ui/index.html', '/docs']) {
      const response = await fixture.app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cross-origin-opener-policy']).toBe('same-origin');
    }
  });
});

describe.skipIf(!HAS_CHROMIUM)(`a window opened by another site in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer(() => new ExtractiveGenerator());
    browser = await launchBrowser(server.url);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('an opener of another origin loses its handle on the page', async () => {
    // Another origin: the same server by another address (localhost, not 127.0.0.1), its own documents only.
    const other = server.url.replace('127.0.0.1', 'localhost');
    await browser.context.route(`${other}/**`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>other site</title>' }));
    const opener = await browser.newPage();
    await opener.goto(`${other}/elsewhere`);
    const [page] = await Promise.all([
      browser.context.waitForEvent('page'),
      opener.evaluate((url) => {
        (globalThis as any).opened = (globalThis as any).open(url);
      }, `${server.url}/ui/?q=cells`),
    ]);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    expect(await opener.evaluate(() => (globalThis as any).opened.closed)).toBe(true);
    await page.close();
    await opener.close();
  });
});
