/**
 * The cart in this tab's sessionStorage, in Chromium, when the corpus holds a title of millions of characters
 * (nothing bounds a title): storing it whole would pass the browser's storage quota, and the cart would stop
 * following the clicks. The cart keeps each title's start only, enough for its list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testArticle } from './test-articles.js';
import { HAS_CHROMIUM, SKIP_REASON, demoArticles, startServerAndBrowser, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const sessionStorage: any;

const HUGE_TITLE = `Zebrafinch ${'song '.repeat(600_000)}learning`;

describe.skipIf(!HAS_CHROMIUM)(`the cart's storage in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, browser, close } = await startServerAndBrowser([...demoArticles(), testArticle('huge-1', { title: HUGE_TITLE }), testArticle('huge-2', { title: `${HUGE_TITLE} again` })]));
  });
  afterAll(() => close?.());

  it(`articles with ${HUGE_TITLE.length}-character titles go into the cart, and stay there after a reload`, async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/ui/?q=zebrafinch`);
    for (const id of ['huge-1', 'huge-2']) {
      const button = page.locator(`[data-testid="result"][data-article-id="${id}"] button.add-to-archive`);
      await expect.poll(() => button.count()).toBe(1);
      await button.click();
      await expect.poll(() => button.textContent()).toBe('Remove from archive');
    }
    expect(await page.locator('#cart-size').textContent()).toBe('(2)');
    expect(await page.evaluate(() => sessionStorage.getItem('litserve.cart').length)).toBeLessThan(10_000);
    await page.reload();
    await expect.poll(() => page.locator('#cart-list li').count()).toBe(2);
    expect(await page.locator('#cart-list li').first().textContent()).toMatch(/^Zebrafinch song song/);
    await page.close();
  });
});
