/**
 * A demanding user's cart, in Chromium: it holds at most the 10,000 articles one archive may hold, and when this tab's
 * storage (about 5 million characters) cannot keep another article, the cart says so and stays as it was, with no
 * uncaught error. Either way the article is not added, in the page or in the storage.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, SKIP_REASON, startServerAndBrowser, type Browser, type UiServer } from './browser.js';
import { fillTabStorage } from './tab-storage-filler.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const sessionStorage: any;

const CART_KEY = 'litserve.cart';
const MAX_CART_ARTICLES = 10_000;

describe.skipIf(!HAS_CHROMIUM)(`the cart's limits in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let close: (() => Promise<void>) | undefined;
  let page: Page;
  /** Errors the page threw and nothing caught. */
  let uncaught: Error[];

  const cartSize = () => page.locator('#cart-size').textContent();
  const cartMessage = () => page.locator('#cart-message').textContent();
  /** The ids of the cart kept in this tab's storage, read as the page reads them (a string: vitest rewrites an import() in a function). */
  const storedIds = (): Promise<string[]> => page.evaluate("import('/ui/js/cart-storage.js').then((storage) => [...storage.openCartStorage().cart.keys()])");
  const firstCard = () => page.getByTestId('result').first();
  const addButton = () => firstCard().locator('button.add-to-archive');

  beforeAll(async () => {
    ({ server, browser, close } = await startServerAndBrowser());
  });
  afterAll(() => close?.());
  beforeEach(async () => {
    page = await browser.newPage();
    uncaught = [];
    page.on('pageerror', (error) => uncaught.push(error));
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(() => addButton().count()).toBe(1);
  });
  afterEach(async () => {
    await page.close();
  });

  it(`holds at most ${MAX_CART_ARTICLES} articles, says so, and takes another once one is removed`, async () => {
    await page.evaluate(
      ({ key, count }) => sessionStorage.setItem(key, JSON.stringify(Array.from({ length: count }, (_, i) => [`bulk-${i}`, `Bulk article ${i}`]))),
      { key: CART_KEY, count: MAX_CART_ARTICLES },
    );
    await page.reload();
    await expect.poll(cartSize).toBe(`(${MAX_CART_ARTICLES})`);
    await expect.poll(() => addButton().count()).toBe(1);

    await addButton().click();
    await expect.poll(cartMessage).toMatch(/^Not added: an archive holds at most 10,000 articles/);
    expect(await cartSize()).toBe(`(${MAX_CART_ARTICLES})`);
    expect(await addButton().textContent()).toBe('Add to archive');
    expect(await storedIds()).toHaveLength(MAX_CART_ARTICLES);

    await page.getByRole('button', { name: 'Remove Bulk article 0 from the archive' }).click();
    await expect.poll(cartSize).toBe(`(${MAX_CART_ARTICLES - 1})`);
    // The refusal gives way to what the removal did.
    expect(await cartMessage()).toBe(`Removed from the archive: Bulk article 0 (${MAX_CART_ARTICLES - 1} articles).`);
    await addButton().click();
    await expect.poll(cartSize).toBe(`(${MAX_CART_ARTICLES})`);
    expect(await addButton().textContent()).toBe('Remove from archive');
    const articleId = await firstCard().getAttribute('data-article-id');
    expect((await storedIds()).at(-1)).toBe(articleId);
    expect(uncaught).toEqual([]);
  });

  it("says when this tab's storage is full, leaves the cart as it was, and throws nothing", async () => {
    await fillTabStorage(page);

    await addButton().click();
    await expect.poll(cartMessage).toBe(
      "The cart was left as it was: this tab's storage, which keeps it, is full. Download the archive, or remove some articles, before adding others.",
    );
    expect(await cartSize()).toBe('(0)');
    expect(await addButton().textContent()).toBe('Add to archive');
    expect(await storedIds()).toEqual([]);

    // Room made: the same click adds it, and the refusal is taken back.
    await page.evaluate(() => sessionStorage.removeItem('filler-0'));
    await addButton().click();
    await expect.poll(cartSize).toBe('(1)');
    expect(await addButton().textContent()).toBe('Remove from archive');
    expect(await cartMessage()).toMatch(/^Added to the archive: .+ \(1 article\)\.$/);
    expect(uncaught).toEqual([]);
  });
});
