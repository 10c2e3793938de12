/**
 * A click on a large cart, in Chromium: each had rewritten the whole cart in this tab's storage and rebuilt its whole
 * list, a second per click with 6,000 long ids. A click now stores the one change and adds or removes the one list
 * entry; a reload still shows the cart in its order, a cart kept by the older page (one key) included.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, SKIP_REASON, startServerAndBrowser, type Browser, type UiServer } from './browser.js';
import { fillTabStorage } from './tab-storage-filler.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const sessionStorage: any, document: any, Storage: any;

/** The older page's format, one key holding every [article_id, title] pair: still read. */
const CART_KEY = 'litserve.cart';
const BULK_ARTICLES = 1_000;

describe.skipIf(!HAS_CHROMIUM)(`clicks on a large cart in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let close: (() => Promise<void>) | undefined;
  let page: Page;
  let uncaught: Error[];

  const firstCard = () => page.getByTestId('result').first();
  const addButton = () => firstCard().locator('button.add-to-archive');
  const listTitles = () => page.locator('#cart-list li bdi').allTextContents();
  const bulkTitles = (count: number) => Array.from({ length: count }, (_, i) => `Bulk article ${i}`);

  /** A new page on `cells` with a cart of `count` bulk articles kept as the older page kept it. */
  const openWithBulkCart = async (count: number) => {
    page = await browser.newPage();
    uncaught = [];
    page.on('pageerror', (error) => uncaught.push(error));
    await page.goto(`${server.url}/ui/?q=cells`);
    await page.evaluate(
      ({ key, count }) => sessionStorage.setItem(key, JSON.stringify(Array.from({ length: count }, (_, i) => [`bulk-${i}`, `Bulk article ${i}`]))),
      { key: CART_KEY, count },
    );
    await page.reload();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${count})`);
    await expect.poll(() => addButton().count()).toBe(1);
  };

  /** Every [key, value] the page writes to this tab's storage from now on. */
  const recordWrites = () =>
    page.evaluate(() => {
      const writes: [string, string][] = [];
      (globalThis as any).storageWrites = writes;
      const setItem = Storage.prototype.setItem;
      Storage.prototype.setItem = function (this: unknown, key: string, value: string) {
        writes.push([key, String(value)]);
        return setItem.call(this, key, value);
      };
    });
  const writes = (): Promise<[string, string][]> => page.evaluate(() => (globalThis as any).storageWrites);

  beforeAll(async () => {
    ({ server, browser, close } = await startServerAndBrowser());
  });
  afterAll(() => close?.());
  afterEach(() => page?.close());

  it(`a click stores that article's change alone, not the ${BULK_ARTICLES} others, and a reload keeps the cart in order`, async () => {
    await openWithBulkCart(BULK_ARTICLES);
    await recordWrites();

    await addButton().click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${BULK_ARTICLES + 1})`);
    const written = await writes();
    expect(written.length).toBeGreaterThan(0);
    // What was written names this article, and no other one.
    expect(written.map(([, value]) => value).join('')).not.toMatch(/bulk-/);
    const title = (await listTitles()).at(-1);
    expect(title).not.toMatch(/^Bulk/);

    await page.reload();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${BULK_ARTICLES + 1})`);
    expect(await listTitles()).toEqual([...bulkTitles(BULK_ARTICLES), title]);

    // Removed again, one from the middle besides: the rest keep their order.
    await expect.poll(() => addButton().textContent()).toBe('Remove from archive');
    await addButton().click();
    await page.getByRole('button', { name: 'Remove Bulk article 500 from the archive' }).click();
    await page.reload();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${BULK_ARTICLES - 1})`);
    expect(await listTitles()).toEqual(bulkTitles(BULK_ARTICLES).filter((t) => t !== 'Bulk article 500'));
    expect(uncaught).toEqual([]);
  });

  it("a click adds or removes its own list entry and leaves the others' nodes as they were", async () => {
    await openWithBulkCart(BULK_ARTICLES);
    // A mark on each entry's node: a list rebuilt from scratch has no marked entry left.
    const marked = () => page.evaluate(() => [...document.querySelectorAll('#cart-list li')].filter((li: any) => li.seenBefore).length);
    await page.evaluate(() => document.querySelectorAll('#cart-list li').forEach((li: any) => (li.seenBefore = true)));

    await addButton().click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${BULK_ARTICLES + 1})`);
    expect(await marked()).toBe(BULK_ARTICLES);
    expect(await page.locator('#cart-list li').count()).toBe(BULK_ARTICLES + 1);

    await page.getByRole('button', { name: 'Remove Bulk article 0 from the archive' }).click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${BULK_ARTICLES})`);
    expect(await marked()).toBe(BULK_ARTICLES - 1);
    // The focus stays in the cart, on the button now in the removed one's place.
    expect(await page.evaluate(() => document.activeElement.getAttribute('aria-label'))).toBe('Remove Bulk article 1 from the archive');
    expect(uncaught).toEqual([]);
  });

  it('after many clicks the stored cart is rewritten whole once, and a reload reads it the same', async () => {
    await openWithBulkCart(3);
    // Past the 100 changes kept before the whole cart is rewritten: an odd count, so the article ends in the cart.
    for (let click = 0; click < 151; click++) await addButton().click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe('(4)');
    const stored = await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('litserve.cart')).length);
    // The whole cart, the count and the changes since the rewrite: not all 151.
    expect(stored).toBeLessThan(60);
    const titles = await listTitles();
    await page.reload();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe('(4)');
    expect(await listTitles()).toEqual(titles);
    expect(uncaught).toEqual([]);
  });

  it('a full storage still lets an article be removed, and the removal is kept', async () => {
    await openWithBulkCart(3);
    await addButton().click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe('(4)');
    // Everything the storage takes, in pieces that shrink as it fills: not even a logged change fits.
    await fillTabStorage(page);

    await page.getByRole('button', { name: 'Remove Bulk article 1 from the archive' }).click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe('(3)');
    expect(await page.locator('#cart-message').textContent()).toBe('Removed from the archive: Bulk article 1 (3 articles).');
    const titles = await listTitles();
    await page.reload();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe('(3)');
    expect(await listTitles()).toEqual(titles);
    expect(titles).not.toContain('Bulk article 1');
    expect(uncaught).toEqual([]);
  });
});
