/**
 * The cart in this tab's sessionStorage, in Chromium, when the corpus holds a title of millions of characters
 * (nothing bounds a title): storing it whole would pass the browser's storage quota, and the cart would stop
 * following the clicks. The cart keeps each title's start only, enough for its list. And the page when the
 * stored cart cannot be read, or the browser refuses the storage: both had stopped the page as it loaded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testArticle } from './test-articles.js';
import type { Page } from 'playwright-core';
import { HAS_CHROMIUM, SKIP_REASON, demoArticles, startServerAndBrowser, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const sessionStorage: any;
declare const window: any;
declare const DOMException: any;

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
    const storedLength = () =>
      page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('litserve.cart')).reduce((sum, key) => sum + sessionStorage.getItem(key).length, 0));
    expect(await storedLength()).toBeLessThan(10_000);
    await page.reload();
    await expect.poll(() => page.locator('#cart-list li').count()).toBe(2);
    expect(await page.locator('#cart-list li').first().textContent()).toMatch(/^Zebrafinch song song/);
    await page.close();
  });

  // The damaged and refused storage below need no huge title: a demo article's card keeps each page load light.
  const cardButton = (page: Page) => page.getByTestId('result').first().locator('button.add-to-archive');

  /** The page on `cells`, once its results are shown; the first card's cart button. */
  const searchedPage = async (prepare?: (page: Page) => Promise<unknown>) => {
    const page = await browser.newPage();
    await prepare?.(page);
    await page.goto(`${server.url}/ui/?q=cells`);
    const button = cardButton(page);
    await expect.poll(() => button.count()).toBe(1);
    return { page, button };
  };

  it.each([
    ['not JSON', '[["a", "A title"'],
    ['JSON of another shape', '{"a": "A title"}'],
    ['a list of string triples, not pairs', '[["a", "A title", "more"]]'],
  ])('a stored cart that is %s starts empty, says so, and the page works', async (_kind, value) => {
    const { page } = await searchedPage();
    await page.evaluate((stored) => sessionStorage.setItem('litserve.cart', stored), value);
    await page.reload();
    const button = cardButton(page);
    await expect.poll(() => button.count()).toBe(1);
    expect(await page.locator('#cart-message').textContent()).toBe('The cart kept in this tab could not be read: it starts empty.');
    expect(await page.locator('#cart-size').textContent()).toBe('(0)');
    await button.click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe('(1)');
    await page.close();
  });

  it('where the browser refuses the tab storage (site data blocked), keeps the cart while the page lasts and says so', async () => {
    const { page, button } = await searchedPage((page) =>
      // What Chromium does when the site's data is blocked: reading the property throws.
      page.addInitScript(() =>
        Object.defineProperty(window, 'sessionStorage', {
          get() {
            throw new DOMException('Access is denied for this document.', 'SecurityError');
          },
        }),
      ),
    );
    expect(await page.locator('#cart-message').textContent()).toBe('This browser keeps no data for this site: the cart and the access token last until the page is reloaded.');
    await button.click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe('(1)');
    expect(await button.textContent()).toBe('Remove from archive');
    await page.close();
  });
});
