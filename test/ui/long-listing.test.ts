/**
 * The page's listing fetches at most 1,000 articles: with more matching, the count says how many
 * and the pager ends at page 100, so the page says that the rest is not listed (it had said nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { randomArticles } from '../search/helpers.js';
import { HAS_CHROMIUM, SKIP_REASON, startServerAndBrowser } from './browser.js';

describe.skipIf(!HAS_CHROMIUM)(`a listing longer than the page fetches, in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let page: Page;
  let url: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // Years 2010-2019, a tenth of the articles each: the listing of 2010 alone is short.
    const started = await startServerAndBrowser(randomArticles(1_050, 7));
    close = started.close;
    url = started.server.url;
    page = await started.browser.newPage();
  });
  afterAll(() => close?.());

  const notice = () => page.getByText('Only the first 1,000 articles are listed; narrow the filters to list the others.');

  it('says that only the first 1,000 are listed, and says nothing when all are', async () => {
    await page.goto(`${url}/ui/?mode=list`);
    await expect.poll(() => page.locator('#page-label').textContent()).toBe('Page 1 of 100');
    expect(await page.locator('#article-count').textContent()).toBe('1050');
    await expect.poll(() => notice().isVisible()).toBe(true);

    await page.goto(`${url}/ui/?mode=list&date_to=2010-12-31`);
    await expect.poll(() => page.locator('#page-label').textContent()).toBe('Page 1 of 11');
    expect(await notice().count()).toBe(0);
  });
});
