/**
 * Article fields as a hostile or unusual corpus may hold them, in Chromium: a
 * word longer than any column, a direction control (U+202E) left open in an
 * author's name, and a DOI with characters that end a URL's path. The page must
 * keep its layout, show each field in its own order and link to the whole DOI.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testArticle } from './test-articles.js';
import { HAS_CHROMIUM, SKIP_REASON, demoArticles, readsLeftToRight, startServerAndBrowser, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const document: any;

const LONG_WORD = 'Zebrafinchsongnucleus'.repeat(15);
const RIGHT_TO_LEFT_OVERRIDE = '\u202E';
const DOI = '10.5555/odd#1?x=2%';

const HUGE_PARAGRAPH = `Zebrafinch tutors ${'repeat the same song motif '.repeat(1200)}until the juvenile copies it.`;

const ODD_ARTICLES = [
  testArticle('odd-huge', { title: 'A very long abstract', paragraphs: [{ section: 'Abstract', text: HUGE_PARAGRAPH }] }),
  testArticle('odd-long', { title: `The ${LONG_WORD} of the zebrafinch` }),
  testArticle('odd-bidi', { authors: [`Eve ${RIGHT_TO_LEFT_OVERRIDE}Mallory`, 'Bob Smith'], article_doi: DOI }),
];

describe.skipIf(!HAS_CHROMIUM)(`unusual article text in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let page: Page;

  const card = (id: string) => page.locator(`[data-testid="result"][data-article-id="${id}"]`);

  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, browser, close } = await startServerAndBrowser([...demoArticles(), ...ODD_ARTICLES]));
  });
  afterAll(() => close?.());
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page.close();
  });

  for (const width of [1280, 360]) {
    it(`a title with a ${LONG_WORD.length}-letter word wraps inside its card, and the page does not scroll sideways (${width} px wide)`, async () => {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${server.url}/ui/?q=zebrafinch`);
      await expect.poll(() => card('odd-long').count()).toBe(1);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const [cardBox, listBox] = [await card('odd-long').boundingBox(), await page.locator('#result-list').boundingBox()];
      expect(cardBox!.x + cardBox!.width).toBeLessThanOrEqual(listBox!.x + listBox!.width + 1);
      const titleWidth = await card('odd-long').locator('h3').evaluate((title) => title.scrollWidth - title.clientWidth);
      expect(titleWidth).toBeLessThanOrEqual(0);
    });
  }

  it('a direction control left open in one author name does not reverse the other fields of the card', async () => {
    await page.goto(`${server.url}/ui/?q=zebrafinch`);
    await expect.poll(() => card('odd-bidi').count()).toBe(1);
    // The same text as before: only its layout is at stake.
    expect(await card('odd-bidi').locator('.meta').textContent()).toBe(`Eve ${RIGHT_TO_LEFT_OVERRIDE}Mallory, Bob Smith · Journal of Tests · 2021-03-04 · research-article`);
    expect(await readsLeftToRight(card('odd-bidi').locator('.meta'), 'Bob Smith')).toBe(true);
    expect(await readsLeftToRight(card('odd-bidi').locator('.meta'), 'Journal of Tests')).toBe(true);
    expect(await readsLeftToRight(card('odd-bidi').locator('.meta'), '2021-03-04')).toBe(true);
    // The check does see a reversal: inside the name that holds the control, the text after it runs right to left.
    expect(await readsLeftToRight(card('odd-bidi').locator('.meta'), 'Mallory')).toBe(false);
  });

  it(`a ${HUGE_PARAGRAPH.length}-character paragraph opens on its first lines, and a button shows it whole`, async () => {
    await page.goto(`${server.url}/ui/?q=zebrafinch`);
    await expect.poll(() => card('odd-huge').count()).toBe(1);
    const huge = card('odd-huge');
    const height = async () => (await huge.boundingBox())!.height;
    expect(await height()).toBeLessThan(500);
    // All of it is in the page, marked words included, even while clamped.
    expect(await huge.locator('.paragraph').textContent()).toBe(`Abstract ${HUGE_PARAGRAPH}`);
    const expand = huge.getByRole('button', { name: 'Show the whole paragraph' });
    expect(await expand.getAttribute('aria-expanded')).toBe('false');
    await expand.click();
    expect(await height()).toBeGreaterThan(3000);
    const collapse = huge.getByRole('button', { name: 'Show less' });
    expect(await collapse.getAttribute('aria-expanded')).toBe('true');
    await collapse.click();
    expect(await height()).toBeLessThan(500);
    // A short paragraph has no such button.
    expect(await card('odd-bidi').getByRole('button', { name: /Show/ }).count()).toBe(0);
  });

  it('links to the whole DOI, even one holding "#", "?" or "%"', async () => {
    await page.goto(`${server.url}/ui/?q=zebrafinch`);
    await expect.poll(() => card('odd-bidi').count()).toBe(1);
    const doiLink = card('odd-bidi').getByRole('link', { name: `DOI ${DOI}` });
    const href = new URL((await doiLink.getAttribute('href'))!);
    expect(href.origin).toBe('https://doi.org');
    expect(href.hash).toBe('');
    expect(href.search).toBe('');
    expect(decodeURIComponent(href.pathname)).toBe(`/${DOI}`);
  });
});
