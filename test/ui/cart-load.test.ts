/**
 * Opening the page on a large cart kept with its change log, in Chromium: each logged change had copied the whole
 * cart as it was read (10,000 articles and their 10,000 changes took 7 s), the log grew to as many changes as the
 * cart held (and past its bound when the rewritten cart found no room beside it), and a stored cart that could not be
 * read left its changes behind, to be read onto the new cart's.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, SKIP_REASON, startServerAndBrowser, type Browser, type UiServer } from './browser.js';
import { fillTabStorage } from './tab-storage-filler.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const sessionStorage: any;

const CART_KEY = 'litserve.cart';
const COUNT_KEY = 'litserve.cart.changes';
const changeKey = (n: number) => `litserve.cart.change.${n}`;
/** The most changes logged before the whole cart is rewritten. */
const MAX_LOGGED_CHANGES = 1_000;

interface StoredCart {
  whole: string;
  changes: string[];
}

describe.skipIf(!HAS_CHROMIUM)(`opening a stored cart in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let close: (() => Promise<void>) | undefined;
  let page: Page;
  let uncaught: Error[];

  const bulkPairs = (count: number) => Array.from({ length: count }, (_, i) => [`bulk-${i}`, `Bulk article ${i}`]);
  /** The cart's keys in this tab's storage. */
  const cartKeys = (): Promise<string[]> => page.evaluate(() => Object.keys(sessionStorage).filter((key: string) => key.startsWith('litserve.cart')).sort());

  /** A page with `stored` written as the cart's keys in its tab's storage, not yet read by the page. */
  const openWithStoredCart = async (stored: StoredCart) => {
    page = await browser.newPage();
    uncaught = [];
    page.on('pageerror', (error) => uncaught.push(error));
    await page.goto(`${server.url}/ui/`);
    await page.evaluate(
      ({ stored, keys }) => {
        sessionStorage.setItem(keys.cart, stored.whole);
        stored.changes.forEach((change, n) => sessionStorage.setItem(`${keys.changePrefix}${n}`, change));
        sessionStorage.setItem(keys.count, String(stored.changes.length));
      },
      { stored, keys: { cart: CART_KEY, count: COUNT_KEY, changePrefix: changeKey(0).slice(0, -1) } },
    );
  };

  beforeAll(async () => {
    ({ server, browser, close } = await startServerAndBrowser());
  });
  afterAll(() => close?.());
  afterEach(() => page?.close());

  it('reads each logged change onto one cart, not onto a copy of it per change', async () => {
    const articles = 1_000;
    await openWithStoredCart({ whole: JSON.stringify(bulkPairs(articles)), changes: bulkPairs(articles).map(([id]) => JSON.stringify([id])) });
    // Every entry put into a Map while the stored cart is opened (a Map copied calls `set` for each of its entries);
    // a string, as vitest rewrites an import() in a function.
    const entriesSet: number = await page.evaluate(`import('/ui/js/cart-storage.js').then((storage) => {
      let entries = 0;
      const set = Map.prototype.set;
      Map.prototype.set = function (key, value) { entries += 1; return set.call(this, key, value); };
      try { if (storage.openCartStorage().cart.size !== 0) throw new Error('the changes were not read'); } finally { Map.prototype.set = set; }
      return entries;
    })`);
    // The whole cart's entries, then one per change: not a thousand copies of a thousand.
    expect(entriesSet).toBeLessThanOrEqual(2 * articles);
    expect(uncaught).toEqual([]);
  });

  it(`rewrites the whole cart after ${MAX_LOGGED_CHANGES} changes, however large the cart, and a reload reads it the same`, async () => {
    // A cart still twice the bound once read, with as many changes logged as the bound lets be: removals.
    const articles = 3 * MAX_LOGGED_CHANGES;
    await openWithStoredCart({ whole: JSON.stringify(bulkPairs(articles)), changes: bulkPairs(MAX_LOGGED_CHANGES).map(([id]) => JSON.stringify([id])) });
    await page.reload();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${articles - MAX_LOGGED_CHANGES})`);

    await page.getByRole('button', { name: `Remove Bulk article ${articles - 1} from the archive` }).click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${articles - MAX_LOGGED_CHANGES - 1})`);
    // The one key of the whole cart: the log is gone, not a change longer.
    expect(await cartKeys()).toEqual([CART_KEY]);
    const expected = bulkPairs(articles).slice(MAX_LOGGED_CHANGES, -1);
    expect(JSON.parse(await page.evaluate((key) => sessionStorage.getItem(key), CART_KEY))).toEqual(expected);
    await page.reload();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${expected.length})`);
    expect(await page.locator('#cart-list li bdi').allTextContents()).toEqual(expected.map(([, title]) => title));
    expect(uncaught).toEqual([]);
  });

  it('rewrites the whole cart in place of its log when there is no room for it beside the log, rather than logging on past the bound', async () => {
    // Every article came through the log: the whole cart rewritten takes tens of thousands of characters more than
    // the stored one (a rewrite of a cart the log shrank takes less, and replaces the stored one).
    await openWithStoredCart({ whole: '[]', changes: bulkPairs(MAX_LOGGED_CHANGES).map((pair) => JSON.stringify(pair)) });
    await page.reload();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${MAX_LOGGED_CHANGES})`);
    // Room for a logged change (tens of characters), none for the rewritten cart beside the log.
    await fillTabStorage(page);
    const freed = await page.evaluate(() => {
      const key = Object.keys(sessionStorage).find((name: string) => name.startsWith('filler-') && sessionStorage.getItem(name).length === 1_000);
      sessionStorage.removeItem(key);
      return key;
    });
    expect(freed).toMatch(/^filler-/);

    await page.getByRole('button', { name: `Remove Bulk article ${MAX_LOGGED_CHANGES - 1} from the archive` }).click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${MAX_LOGGED_CHANGES - 1})`);
    expect(await cartKeys()).toEqual([CART_KEY]);
    const expected = bulkPairs(MAX_LOGGED_CHANGES).slice(0, -1);
    expect(JSON.parse(await page.evaluate((key) => sessionStorage.getItem(key), CART_KEY))).toEqual(expected);
    // No refusal: what the removal did, as any removal says it.
    expect(await page.locator('#cart-message').textContent()).toBe(`Removed from the archive: Bulk article ${MAX_LOGGED_CHANGES - 1} (${MAX_LOGGED_CHANGES - 1} articles).`);
    await page.reload();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe(`(${expected.length})`);
    expect(uncaught).toEqual([]);
  });

  it('drops every change of a stored cart it cannot read, so that none is read onto the new cart', async () => {
    // Changes past the count besides: what another version of the page may have left.
    await openWithStoredCart({ whole: '[["a", "A title"', changes: [JSON.stringify(['bulk-0', 'Bulk article 0'])] });
    await page.evaluate((key) => sessionStorage.setItem(key, '["bulk-7", "Bulk article 7"]'), changeKey(7));
    await page.reload();
    await expect.poll(() => page.locator('#cart-message').textContent()).toBe('The cart kept in this tab could not be read: it starts empty.');
    expect(await page.locator('#cart-size').textContent()).toBe('(0)');
    expect(await cartKeys()).toEqual([]);
    expect(uncaught).toEqual([]);
  });
});
