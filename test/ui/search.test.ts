/**
 * The page in Chromium: search, the exact count, each filter (with its
 * suggestions), the URL and the back button, the listing with pages and date
 * order, keyboard-only use, a narrow screen, and no request to another host.
 * Every expected value is asked of the API itself.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { HAS_CHROMIUM, SCREENSHOTS, SKIP_REASON, launchBrowser, settle, startServer, startServerAndBrowser, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const document: any, getComputedStyle: (element: unknown) => { outlineStyle: string; opacity: string; backgroundColor: string };

describe.skipIf(!HAS_CHROMIUM)(`search page in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let page: Page;

  const api = async (url: string) => (await server.fixture.app.inject({ url })).json();
  const count = (query = '') => api(`/retrieval/article_count${query}`).then((body) => String(body.article_count));
  const shownCount = () => page.getByTestId('article-count').textContent();
  const titles = () => page.getByTestId('result').locator('h3').allTextContents();
  const searchBox = () => page.getByRole('searchbox', { name: 'Search' });

  /**
   * Runs `steps` on `/ui/?q=cells` (or `address`) in a browser of its own whose clock stands still once the count has
   * arrived (it moves only by `page.clock.runFor`): however slowly this machine types, a date's delay
   * cannot end by itself. A browser of its own, as the clock is the whole browser context's.
   */
  async function withStoppedClock(steps: () => Promise<void>, address = '/ui/?q=cells'): Promise<void> {
    const own = await launchBrowser(server.url);
    const shared = page;
    try {
      page = await own.newPage();
      await page.clock.install();
      await page.goto(`${server.url}${address}`);
      await expect.poll(shownCount).toBe(await count());
      await page.clock.pauseAt(Date.now() + 60_000);
      await steps();
    } finally {
      page = shared;
      await own.close();
    }
  }

  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, browser, close } = await startServerAndBrowser());
  });
  afterAll(() => close?.());
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page.close();
  });

  it('a browser asking for / lands on the page; Enter in "Search" shows one card per article, best paragraph highlighted, and the exact count', async () => {
    await page.goto(server.url);
    expect(new URL(page.url()).pathname).toBe('/ui/');
    await expect.poll(shownCount).toBe(await count());
    await searchBox().fill('grid cells entorhinal');
    await searchBox().press('Enter');
    const hits: { article_id: string; article_title: string; paragraph: string }[] = await api('/retrieval/?query=grid%20cells%20entorhinal&retriever_k=100');
    const articles = [...new Set(hits.map((hit) => hit.article_id))];
    await expect.poll(() => page.getByTestId('result').count()).toBe(articles.length);
    expect((await titles())[0]).toBe(hits[0]!.article_title);
    const first = page.getByTestId('result').first();
    expect(await first.locator('.paragraph').textContent()).toContain(hits[0]!.paragraph);
    const marked = (await first.locator('mark').allTextContents()).map((m) => m.toLowerCase());
    expect(marked.some((m) => m.startsWith('grid'))).toBe(true);
    expect(marked.every((m) => /^(grid|cell|entorhinal)/.test(m))).toBe(true);
    expect(await first.getByRole('link', { name: /^DOI / }).getAttribute('href')).toMatch(/^https:\/\/doi\.org\/10\./);
    expect(new URL(page.url()).searchParams.get('q')).toBe('grid cells entorhinal');

    await mkdir(SCREENSHOTS, { recursive: true });
    const shot = await page.screenshot();
    expect(shot.length).toBeGreaterThan(10_000);
    if (process.env.UPDATE_SCREENSHOTS === '1') await writeFile(path.join(SCREENSHOTS, 'search.png'), shot);
  });

  it('each filter changes the count and the results, and is kept in the URL; the back button undoes it', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    const allTitles = await titles();

    await page.getByLabel('From', { exact: true }).fill('2015-01-01');
    await expect.poll(shownCount).toBe(await count('?date_from=2015-01-01'));
    await page.getByLabel('To', { exact: true }).fill('2020-12-31');
    await expect.poll(shownCount).toBe(await count('?date_from=2015-01-01&date_to=2020-12-31'));
    const dated: { article_id: string }[] = await api('/retrieval/?query=cells&retriever_k=100&date_from=2015-01-01&date_to=2020-12-31');
    await expect.poll(() => page.getByTestId('result').count()).toBe(new Set(dated.map((d) => d.article_id)).size);
    for (const text of await page.getByTestId('result').locator('.meta').allTextContents()) {
      const date = /\d{4}-\d{2}-\d{2}/.exec(text)![0];
      expect(date >= '2015-01-01' && date <= '2020-12-31').toBe(true);
    }
    expect(new URL(page.url()).searchParams.get('date_to')).toBe('2020-12-31');

    // Back: the date range goes, the count and the results come back.
    await page.goBack();
    await page.goBack();
    await expect.poll(shownCount).toBe(await count());
    await expect.poll(titles).toEqual(allTitles);
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('');

    // Article types: checkboxes with the counts of /suggestions/article_types.
    const types: { article_type: string; docs_in_db: number }[] = await api('/suggestions/article_types');
    const review = page.getByRole('checkbox', { name: /^review-article/ });
    // Each count seen as a number, and read as "N articles" (visually hidden text).
    expect(await page.locator('#type-list label').allTextContents()).toEqual(
      types.map((t) => `${t.article_type}${t.docs_in_db} ${t.docs_in_db} article${t.docs_in_db === 1 ? '' : 's'}`),
    );
    await review.check();
    await expect.poll(shownCount).toBe(await count('?article_types=review-article'));
    // An article matches when any of its types does; a card shows only the primary one, so the cards are
    // compared with the API's own filtered results rather than with the type each card prints.
    const reviews: { article_id: string }[] = await api('/retrieval/?query=cells&retriever_k=100&article_types=review-article');
    const shownIds = () => page.getByTestId('result').evaluateAll((cards) => cards.map((card) => (card as any).dataset.articleId));
    await expect.poll(shownIds).toEqual([...new Set(reviews.map((hit) => hit.article_id))]);
    await review.uncheck();
    await expect.poll(shownCount).toBe(await count());

    // Authors: type-ahead from /suggestions/author, picked with the keyboard.
    const author = page.getByRole('combobox', { name: 'Authors' });
    await author.fill('nun');
    const [suggested] = await api('/suggestions/author?name=nun&limit=8');
    await expect.poll(() => page.getByRole('option').first().textContent()).toBe(`${suggested.name}${suggested.docs_in_db} articles`);
    await author.press('ArrowDown');
    await author.press('Enter');
    await expect.poll(shownCount).toBe(await count(`?authors=${encodeURIComponent(suggested.name)}`));
    expect(new URL(page.url()).searchParams.getAll('authors')).toEqual([suggested.name]);
    await page.getByRole('button', { name: `Remove author ${suggested.name}` }).click();
    await expect.poll(shownCount).toBe(await count());

    // Journals: type-ahead from /suggestions/journal, picked with the mouse; the filter is the ISSN.
    const journal = page.getByRole('combobox', { name: 'Journals' });
    await journal.fill('neuron');
    const [neuron] = await api('/suggestions/journal?keywords=neuron&limit=8');
    await page.getByRole('option', { name: new RegExp(`^${neuron.journal_name} \\(${neuron.journal_issn}\\)`) }).click();
    await expect.poll(shownCount).toBe(await count(`?journals=${neuron.journal_issn}`));
    expect(new URL(page.url()).searchParams.getAll('journals')).toEqual([neuron.journal_issn]);
    // The count and the results are two requests: the cards may arrive after the count.
    const metas = () => page.getByTestId('result').locator('.meta').allTextContents();
    await expect.poll(async () => (await metas()).filter((text) => !text.includes(neuron.journal_name))).toEqual([]);
    expect((await metas()).length).toBeGreaterThan(0);
    await page.getByRole('button', { name: /^Remove journal / }).click();

    // Topics and regions: chips of words.
    await page.getByLabel('Topics', { exact: true }).fill('place cells');
    await page.getByLabel('Topics', { exact: true }).press('Enter');
    await expect.poll(shownCount).toBe(await count('?topics=place%20cells'));
    await page.getByLabel('Regions', { exact: true }).fill('CA1');
    await page.getByLabel('Regions', { exact: true }).press('Enter');
    await page.getByLabel('Regions', { exact: true }).fill('entorhinal');
    await page.getByLabel('Regions', { exact: true }).press('Enter');
    const both = await count('?topics=place%20cells&regions=CA1&regions=entorhinal');
    await expect.poll(shownCount).toBe(both);
    const url = new URL(page.url());
    expect(url.searchParams.getAll('regions')).toEqual(['CA1', 'entorhinal']);
    await expect.poll(() => page.getByTestId('result').count()).toBeLessThanOrEqual(Number(both));

    // The URL alone restores the view (a shared link).
    const shared = await browser.newPage();
    await shared.goto(url.toString());
    await expect.poll(() => shared.getByTestId('article-count').textContent()).toBe(both);
    expect(await shared.getByRole('button', { name: 'Remove region entorhinal' }).count()).toBe(1);
    await shared.close();
  });

  it('a date typed digit by digit is one filter change: one history entry, one search, not one per digit of the year', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    const historyBefore = await page.evaluate(() => (globalThis as any).history.length);
    const countRequests: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/retrieval/article_count') countRequests.push(url.search);
    });
    // Chromium's date field in the en-US order: month, day, then the year's digits one by one.
    await page.getByLabel('From', { exact: true }).click();
    await page.keyboard.type('01022015', { delay: 60 });
    await expect.poll(shownCount).toBe(await count('?date_from=2015-01-02'));
    expect(new URL(page.url()).searchParams.get('date_from')).toBe('2015-01-02');
    expect(countRequests).toEqual(['?date_from=2015-01-02']);
    expect(await page.evaluate(() => (globalThis as any).history.length)).toBe(historyBefore + 1);
    // So one step back is the view before the date.
    await page.goBack();
    await expect.poll(shownCount).toBe(await count());
    expect(new URL(page.url()).searchParams.get('date_from')).toBeNull();
  });

  it('a date typed just before a search or another filter goes with it: one history entry, not a second one when its delay ends', async () => {
    await withStoppedClock(async () => {
      const historyLength = () => page.evaluate(() => (globalThis as any).history.length);
      const historyBefore = await historyLength();
      await page.getByLabel('From', { exact: true }).fill('2015-01-01');
      await searchBox().fill('grid cells');
      await searchBox().press('Enter');
      expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ q: 'grid cells', date_from: '2015-01-01' });
      await page.getByLabel('To', { exact: true }).fill('2020-12-31');
      await page.getByRole('checkbox', { name: /^research-article/ }).check();
      expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ q: 'grid cells', date_from: '2015-01-01', date_to: '2020-12-31', article_types: 'research-article' });
      await expect.poll(shownCount).toBe(await count('?date_from=2015-01-01&date_to=2020-12-31&article_types=research-article'));
      // Past the delay after which a typed date applies: nothing more is added.
      await page.clock.runFor(1000);
      expect(await historyLength()).toBe(historyBefore + 2);
    });
  });

  it('shows the page buttons only for a listing of more than one page', async () => {
    const pager = () => [page.getByRole('button', { name: 'Previous page' }), page.getByRole('button', { name: 'Next page' })];
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(1);
    for (const button of pager()) expect(await button.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'List articles' }).click();
    await expect.poll(() => page.locator('#page-label').textContent()).toMatch(/^Page 1 of [2-9]/);
    for (const button of pager()) expect(await button.isVisible()).toBe(true);
    // A listing that fits on one page.
    const reviews = await api('/retrieval/article_listing?article_types=review-article&size=10&number_results=1000');
    expect(reviews.pages).toBe(1);
    await page.getByRole('checkbox', { name: /^review-article/ }).check();
    await expect.poll(() => page.getByTestId('result').count()).toBe(reviews.items.length);
    for (const button of pager()) expect(await button.isVisible()).toBe(false);
  });

  it('suggestions that arrive after Enter has picked the typed name do not reopen the list', async () => {
    let answered = 0;
    await page.route('**/suggestions/author?*', async (route) => {
      const response = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await route.fulfill({ response }).catch(() => undefined);
      answered++;
    });
    await page.goto(`${server.url}/ui/`);
    const author = page.getByRole('combobox', { name: 'Authors' });
    const requested = page.waitForRequest((request) => request.url().includes('/suggestions/author?'));
    await author.fill('José Núñez');
    await requested;
    await author.press('Enter');
    await expect.poll(() => page.getByRole('button', { name: 'Remove author José Núñez' }).count()).toBe(1);
    // The type-ahead's request, and the lookup Enter made of the typed name.
    await expect.poll(() => answered).toBe(2);
    await page.waitForTimeout(200);
    expect(await page.getByRole('listbox', { name: 'Author suggestions' }).isVisible()).toBe(false);
    expect(await author.getAttribute('aria-expanded')).toBe('false');
    expect(await author.inputValue()).toBe('');
  });

  it('Enter on part of an author\'s name adds the author whose name holds it; on a name no author has, says so and adds nothing', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    const author = page.getByRole('combobox', { name: 'Authors' });
    const [best] = await api('/suggestions/author?name=nun&limit=8');
    await author.fill('nun');
    await author.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.getAll('authors')).toEqual([best.name]);
    await expect.poll(shownCount).toBe(await count(`?authors=${encodeURIComponent(best.name)}`));
    expect(Number(await shownCount())).toBeGreaterThan(0);

    for (const typo of ['zzzqqq', '<script>']) {
      await author.fill(typo);
      await author.press('Enter');
      await expect.poll(() => page.locator('#message').textContent()).toBe(`No author's name holds "${typo}".`);
      expect(new URL(page.url()).searchParams.getAll('authors')).toEqual([best.name]);
    }
  });

  it('white space or invisible characters alone, entered in a filter, add no chip', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    for (const name of ['Topics', 'Regions', 'Authors', 'Journals']) {
      for (const text of ['\u200B\u200B', '\u00AD', '\uFEFF ', '   ']) {
        const field = page.getByLabel(name, { exact: true });
        await field.fill(text);
        await field.press('Enter');
      }
    }
    await settle(page);
    expect(await page.locator('.chips li').count()).toBe(0);
    expect(new URL(page.url()).search).toBe('?q=cells');
    expect(await page.locator('#message').isVisible()).toBe(false);
    expect(requests.filter((url) => url.includes('/suggestions/author') || url.includes('/suggestions/journal'))).toEqual([]);
  });

  it('an ISSN with a wrong check character is added only when a journal here has it; a refusal names the field, not the API parameter', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    const journal = page.getByRole('combobox', { name: 'Journals' });
    // Neuron's ISSN is 0896-6273: 0896-6274 is a typo of it.
    await journal.fill('0896-6274');
    await journal.press('Enter');
    await expect.poll(() => page.locator('#message').textContent()).toBe('0896-6274 is no valid ISSN (its last character would be 3), and no journal here has it.');
    expect(new URL(page.url()).searchParams.getAll('journals')).toEqual([]);
    await journal.fill('0896-6273');
    await journal.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.getAll('journals')).toEqual(['0896-6273']);

    // Over the suggestions' 200 characters: the type-ahead says why under the field, and Enter in the message line.
    await journal.fill('n'.repeat(201));
    await expect.poll(() => page.locator('#journal-options-note').textContent()).toMatch(/^No suggestions\. Invalid input \(Journals\): Journals /);
    await journal.press('Enter');
    await expect.poll(() => page.locator('#message').textContent()).toMatch(/^Invalid input \(Journals\): Journals /);
    expect(await page.locator('#message').textContent()).not.toContain('keywords');
  });

  it('the listing pages through the articles and sorts them by date', async () => {
    await page.goto(`${server.url}/ui/`);
    await page.getByRole('button', { name: 'List articles' }).click();
    const first = await api('/retrieval/article_listing?size=10&page=1&number_results=1000');
    await expect.poll(titles).toEqual(first.items.map((a: { article_title: string }) => a.article_title));
    expect(await page.locator('#page-label').textContent()).toBe(`Page 1 of ${first.pages}`);
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Next page' }).click();
    const second = await api('/retrieval/article_listing?size=10&page=2&number_results=1000');
    await expect.poll(titles).toEqual(second.items.map((a: { article_title: string }) => a.article_title));
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');

    // With a topic the order is by relevance; "Sort by date" makes it newest first and starts again at page 1.
    await page.getByLabel('Topics', { exact: true }).fill('cells');
    await page.getByLabel('Topics', { exact: true }).press('Enter');
    const byScore = await api('/retrieval/article_listing?topics=cells&size=10&page=1&number_results=1000');
    await expect.poll(titles).toEqual(byScore.items.map((a: { article_title: string }) => a.article_title));
    await page.getByLabel('Sort by date').check();
    const byDate = await api('/retrieval/article_listing?topics=cells&size=10&page=1&number_results=1000&sort_by_date=true');
    expect(byDate.items.map((a: { article_id: string }) => a.article_id)).not.toEqual(byScore.items.map((a: { article_id: string }) => a.article_id));
    await expect.poll(titles).toEqual(byDate.items.map((a: { article_title: string }) => a.article_title));
    const dates = (await page.getByTestId('result').locator('.meta').allTextContents()).map((t) => /\d{4}-\d{2}-\d{2}/.exec(t)?.[0] ?? '');
    expect(dates).toEqual([...dates].sort().reverse());
    expect(new URL(page.url()).searchParams.get('sort')).toBe('date');
    await page.goBack();
    await expect.poll(titles).toEqual(byScore.items.map((a: { article_title: string }) => a.article_title));
  });

  it('works from the keyboard alone, with a visible focus', async () => {
    await page.goto(`${server.url}/ui/`);
    await expect.poll(shownCount).toBe(await count());
    // The first stops: the three skip links, the site name, then the search field.
    for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('query');
    await page.keyboard.type('dopamine reward');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(1);
    // Tab onwards to the first card's archive button and press it.
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const label = await page.evaluate(() => document.activeElement?.textContent);
      if (label === 'Add to archive') break;
    }
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    expect(outline).not.toBe('none');
    await page.keyboard.press('Enter');
    expect(await page.locator('#cart-size').textContent()).toBe('(1)');
    expect(await page.evaluate(() => document.activeElement.textContent)).toBe('Remove from archive');
  });

  /** Names the page's three parts (in the page, where Playwright runs it). */
  const markParts = () =>
    page.evaluate(() => {
      for (const [selector, part] of [['#results', 'results'], ['.filters', 'filters'], ['.cart', 'archive']]) document.querySelector(selector).dataset.part = part;
    });

  /** The page's parts (results, filters, archive) in the order Tab reaches them from the search field. */
  async function partsInTabOrder(): Promise<string[]> {
    await markParts();
    await searchBox().focus();
    const parts: string[] = [];
    for (let presses = 0; presses < 200; presses++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement;
        return { part: element?.closest('[data-part]')?.dataset.part ?? null, last: element?.id === 'project' };
      });
      if (focused.part && parts.at(-1) !== focused.part) parts.push(focused.part);
      if (focused.last) return parts;
    }
    throw new Error(`Tab never reached the archive's project field: ${parts.join(', ')}`);
  }

  /** The same parts in the order they are seen: top to bottom, then left to right. */
  const partsOnScreen = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('[data-part]')]
        .map((element) => ({ part: element.dataset.part, box: element.getBoundingClientRect() }))
        .sort((a, b) => Math.round(a.box.top) - Math.round(b.box.top) || a.box.left - b.box.left)
        .map(({ part }) => part),
    );

  it('on a narrow screen, Tab from the search field reaches the results, then the filters, then the archive, as they are shown', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${server.url}/ui/?q=cells&article_types=review-article`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    expect(await partsInTabOrder()).toEqual(['results', 'filters', 'archive']);
    expect(await partsOnScreen()).toEqual(['results', 'filters', 'archive']);
  });

  it('on a wide screen, Tab goes through the parts in the order they are shown too', async () => {
    await page.goto(`${server.url}/ui/?q=cells&article_types=review-article`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    // Side by side: the results and the filters start on the same line.
    const tops = await page.evaluate(() => [...document.querySelectorAll('#results, .filters')].map((element) => Math.round(element.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
    expect(await partsInTabOrder()).toEqual(await partsOnScreen());
    expect(await partsOnScreen()).toHaveLength(3);
  });

  it('a page turned with the pager takes the focus and the view to the top of its results, where reading starts again', async () => {
    await page.goto(`${server.url}/ui/?mode=list`);
    const first = await api('/retrieval/article_listing?size=10&page=1&number_results=1000');
    expect(first.pages).toBeGreaterThan(2);
    await expect.poll(() => page.locator('#page-label').textContent()).toBe(`Page 1 of ${first.pages}`);
    const focusedId = () => page.evaluate(() => document.activeElement?.id);
    const resultsTop = () => page.getByRole('list', { name: 'Results' }).evaluate((list) => Math.round(list.getBoundingClientRect().top));
    for (const [button, shown] of [['Next page', 2], ['Next page', 3], ['Previous page', 2]] as const) {
      await page.getByRole('button', { name: button }).focus();
      expect(await resultsTop()).toBeLessThan(0);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#page-label').textContent()).toBe(`Page ${shown} of ${first.pages}`);
      await expect.poll(focusedId).toBe('result-list');
      // Scrolled to the list's top: in view, at the top of the window.
      expect(Math.abs(await resultsTop())).toBeLessThan(1);
      // The next Tab goes into the page's first card.
      const expected: { article_title: string }[] = (await api(`/retrieval/article_listing?size=10&page=${shown}&number_results=1000`)).items;
      expect((await titles())[0]).toBe(expected[0]!.article_title);
    }
  });

  it('a date a date field cannot hold, from a link, is set aside rather than left as an error nobody can correct', async () => {
    for (const bad of ['2020-13-45', 'yesterday', '2021-02-29']) {
      await page.goto(`${server.url}/ui/?q=cells&date_from=${bad}&date_to=2030-01-01`);
      await expect.poll(shownCount).toBe(await count('?date_to=2030-01-01'));
      expect(await page.getByText(/Invalid input/).count()).toBe(0);
      expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('2030-01-01');
      // The address says what the page shows, in the same history entry.
      expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ q: 'cells', date_to: '2030-01-01' });
      await page.goBack();
      expect(page.url()).not.toContain(bad);
    }
  });

  it('a listing page past the end, from a link, becomes the last page, in place, and says so', async () => {
    const first = await api('/retrieval/article_listing?size=10&page=1&number_results=1000');
    const last = await api(`/retrieval/article_listing?size=10&page=${first.pages}&number_results=1000`);
    const historyLength = () => page.evaluate(() => (globalThis as any).history.length);
    await page.goto(`${server.url}/ui/?mode=list&page=500`);
    const before = await historyLength();
    await expect.poll(() => page.locator('#page-label').textContent()).toBe(`Page ${first.pages} of ${first.pages}`);
    expect(await page.locator('#message').textContent()).toBe(`Page 500 is past the end of the listing: this is its last page, ${first.pages}.`);
    expect(await titles()).toEqual(last.items.map((a: { article_title: string }) => a.article_title));
    // The address says the page shown, in the same history entry (as page=abc becomes page 1).
    expect(new URL(page.url()).searchParams.get('page')).toBe(String(first.pages));
    expect(await historyLength()).toBe(before);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    // A number past the API's largest page too, not an error; the line says the number the link asked for,
    // as typed even past what a JavaScript number holds exactly, not the page asked for in its place.
    for (const typed of ['99999999999', '99999999999999999999999', '+00012345678901234567890123']) {
      await page.goto(`${server.url}/ui/?mode=list&page=${encodeURIComponent(typed)}`);
      await expect.poll(() => page.locator('#page-label').textContent()).toBe(`Page ${first.pages} of ${first.pages}`);
      const digits = typed.replace(/^\+0*/, '');
      expect(await page.locator('#message').textContent()).toBe(`Page ${digits} is past the end of the listing: this is its last page, ${first.pages}.`);
    }
    // A number too long to quote (hundreds of digits, past even what parseInt reads as finite) is "that page".
    await page.goto(`${server.url}/ui/?mode=list&page=${'9'.repeat(400)}`);
    await expect.poll(() => page.locator('#page-label').textContent()).toBe(`Page ${first.pages} of ${first.pages}`);
    expect(await page.locator('#message').textContent()).toBe(`That page is past the end of the listing: this is its last page, ${first.pages}.`);
    // A listing of one page, past its end: its only page, without a pager.
    const one = await api('/retrieval/article_listing?size=10&page=1&number_results=1000&authors=Jos%C3%A9%20N%C3%BA%C3%B1ez');
    expect(one.pages).toBe(1);
    await page.goto(`${server.url}/ui/?mode=list&page=3&authors=Jos%C3%A9%20N%C3%BA%C3%B1ez`);
    await expect.poll(titles).toEqual(one.items.map((a: { article_title: string }) => a.article_title));
    expect(new URL(page.url()).searchParams.has('page')).toBe(false);
    expect(await page.locator('#pager').isVisible()).toBe(false);
    // A listing with nothing in it: page 1, saying that nothing matches.
    await page.goto(`${server.url}/ui/?mode=list&page=3&article_types=no-such-type`);
    await expect.poll(() => page.locator('#message').textContent()).toBe('No article matches these filters.');
    expect(new URL(page.url()).searchParams.has('page')).toBe(false);
  });

  it('says that results arrived, in a status region (seen for a search, read out for a listing), also when only the query changed', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    const status = page.getByRole('status').and(page.locator('#results-status'));
    // The page asks for the best 100 paragraphs: all 100 came back, so these are the best articles, not all there are.
    const cellsHits: { article_id: string }[] = await api('/retrieval/?query=cells&retriever_k=100');
    expect(cellsHits).toHaveLength(100);
    await expect.poll(() => status.textContent()).toBe(`The ${new Set(cellsHits.map((hit) => hit.article_id)).size} best-matching articles for “cells”.`);
    // Fewer than asked: every paragraph that matches, so every article.
    await searchBox().fill('entorhinal');
    await searchBox().press('Enter');
    const entorhinalHits: { article_id: string }[] = await api('/retrieval/?query=entorhinal&retriever_k=100');
    expect(entorhinalHits.length).toBeLessThan(100);
    await expect.poll(() => status.textContent()).toBe(`${new Set(entorhinalHits.map((hit) => hit.article_id)).size} articles found for “entorhinal”.`);
    // A search's line is seen too: the count above it is of the filters alone.
    expect(await status.isVisible()).toBe(true);
    expect(await status.evaluate((element) => element.getBoundingClientRect().width)).toBeGreaterThan(100);
    await page.getByRole('button', { name: 'List articles' }).click();
    const listing = await api('/retrieval/article_listing?size=10&page=1&number_results=1000');
    await expect.poll(() => status.textContent()).toBe(`Listing, page 1 of ${listing.pages}: ${listing.items.length} articles.`);
    // A listing's line repeats its pager: hidden from sight, not from assistive technology.
    expect(await status.evaluate((element) => element.getBoundingClientRect().width)).toBeLessThanOrEqual(1);
    // A long query is read back by its start, not whole.
    const longQuery = `cells ${'entorhinal grid '.repeat(200)}`.trim();
    await searchBox().fill(longQuery);
    await searchBox().press('Enter');
    await expect.poll(() => status.textContent()).toMatch(/^(The \d+ best-matching articles|\d+ articles? found) for “cells entorhinal grid .{0,90}…”\.$/);
  });

  it('article types refused once (429) are asked again with the next view, not left empty until a reload', async () => {
    let refused = 0;
    await page.route('**/suggestions/article_types', (route) => {
      if (refused++ > 0) return route.continue();
      return route.fulfill({ status: 429, headers: { 'retry-after': '1', 'content-type': 'application/json' }, body: JSON.stringify({ detail: { code: 5, detail: 'rate limit of 600 requests per minute exceeded; retry in 1 second' } }) });
    });
    await page.goto(`${server.url}/ui/`);
    await expect.poll(() => page.locator('#message').textContent()).toContain('Try again in 1 second');
    // When to retry is said once, from Retry-After, not again from the server's message.
    expect((await page.locator('#message').textContent())!.match(/retry in|try again in/gi)).toHaveLength(1);
    expect(await page.locator('#message').textContent()).toContain('rate limit of 600 requests per minute exceeded');
    expect(await page.locator('#type-list label').count()).toBe(0);
    await searchBox().fill('cells');
    await searchBox().press('Enter');
    const types: { article_type: string }[] = await api('/suggestions/article_types');
    await expect.poll(() => page.locator('#type-list input').evaluateAll((boxes) => boxes.map((box) => (box as any).value))).toEqual(types.map((t) => t.article_type));
    // Asked once more, not with every view from then on.
    await page.getByRole('button', { name: 'List articles' }).click();
    await expect.poll(() => page.locator('#page-label').textContent()).toMatch(/^Page 1/);
    expect(refused).toBe(2);
  });

  it('while a slower search loads, the cards of the last one are marked busy and dimmed', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    let release = () => {};
    await page.route('**/retrieval/?query=grid*', (route) => {
      release = () => void route.continue();
    });
    const list = page.getByRole('list', { name: 'Results' });
    const opacity = () => list.evaluate((element) => getComputedStyle(element).opacity);
    expect(await list.getAttribute('aria-busy')).toBe('false');
    await searchBox().fill('grid cells');
    await searchBox().press('Enter');
    await expect.poll(() => list.getAttribute('aria-busy')).toBe('true');
    await expect.poll(opacity).toBe('0.45');
    release();
    const hits: { article_title: string }[] = await api('/retrieval/?query=grid%20cells&retriever_k=100');
    await expect.poll(async () => (await titles())[0]).toBe(hits[0]!.article_title);
    expect(await list.getAttribute('aria-busy')).toBe('false');
    await expect.poll(opacity).toBe('1');
  });

  it('an article type from a link that this index lacks is listed, checked, with 0 articles, and can be unchecked', async () => {
    await page.goto(`${server.url}/ui/?q=cells&article_types=no-such-type`);
    const unknown = page.getByRole('checkbox', { name: 'no-such-type 0 articles' });
    await expect.poll(() => unknown.isChecked()).toBe(true);
    await expect.poll(shownCount).toBe('0');
    await unknown.uncheck();
    await expect.poll(shownCount).toBe(await count());
    expect(new URL(page.url()).searchParams.getAll('article_types')).toEqual([]);
    // A count of one reads in the singular.
    const types: { article_type: string; docs_in_db: number }[] = await api('/suggestions/article_types');
    const single = types.find((type) => type.docs_in_db === 1)!;
    expect(await page.getByRole('checkbox', { name: `${single.article_type} 1 article`, exact: true }).count()).toBe(1);
  });

  it('a filter value repeated or empty in a hand-made link is taken once, so an unknown type can still be unchecked and no empty chip shows', async () => {
    await page.goto(`${server.url}/ui/?q=cells&article_types=no-such-type&article_types=no-such-type&topics=&authors=Ada&authors=Ada&authors=%07&regions=%E2%80%8B&journals=%C2%AD%20`);
    const unknown = page.getByRole('checkbox', { name: 'no-such-type 0 articles' });
    await expect.poll(() => unknown.count()).toBe(1);
    expect(await page.locator('[data-filter="topics"] .chips li').count()).toBe(0);
    // Invisible characters alone (a zero-width space; a soft hyphen and a space), or a control character: no chip, and
    // out of the address.
    expect(await page.locator('[data-filter="regions"] .chips li, [data-filter="journals"] .chips li').count()).toBe(0);
    expect(new URL(page.url()).searchParams.has('regions') || new URL(page.url()).searchParams.has('journals')).toBe(false);
    expect(await page.locator('[data-filter="authors"] .chips li').count()).toBe(1);
    await unknown.uncheck();
    await expect.poll(() => new URL(page.url()).searchParams.getAll('article_types')).toEqual([]);
    expect(await unknown.isChecked()).toBe(false);
  });

  it('a view that failed shows no count of the filters before it', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    await page.route('**/retrieval/**', (route) => route.abort('connectionrefused'));
    await page.getByRole('checkbox', { name: /^review-article/ }).check();
    await expect.poll(() => page.locator('#message').textContent()).toContain('The server could not be reached');
    // Marked as failed, not "…" as if still on its way.
    await expect.poll(shownCount).toBe('—');
    await page.unroute('**/retrieval/**');
    await page.getByRole('checkbox', { name: /^review-article/ }).uncheck();
    await expect.poll(shownCount).toBe(await count());
  });

  it('a query too long for a web address is refused before it is sent, and the page stays reloadable', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    // 3,000 characters: under the server's question length, but 9 characters each once encoded in an address.
    const query = '细胞'.repeat(1500);
    const sent: string[] = [];
    page.on('request', (request) => sent.push(request.url()));
    await searchBox().fill(query);
    await searchBox().press('Enter');
    await expect.poll(() => page.locator('#message').textContent()).toMatch(/^Too long to search: the query and filters would take \d+ characters/);
    expect(sent.filter((url) => url.includes('/retrieval/'))).toEqual([]);
    expect(new URL(page.url()).searchParams.get('q')).toBe('cells');
    expect(await searchBox().inputValue()).toBe(query);
    expect((await page.reload())!.status()).toBe(200);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
  });

  it('a query over the server\'s question length is refused without advising Ask, typed or from a link, and never sent', async () => {
    const sent: string[] = [];
    page.on('request', (request) => sent.push(request.url()));
    const query = 'cells '.repeat(2100).trim();
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    await searchBox().fill(query);
    await searchBox().press('Enter');
    const refusal = /^Too long to search: the query and filters would take \d+ characters in the page's address, over the 12000 it may hold\. Shorten the query: this server takes at most 10,000 characters \(it has 12,599\)\.$/;
    await expect.poll(() => page.locator('#message').textContent()).toMatch(refusal);

    await page.goto(`${server.url}/ui/?q=${'a'.repeat(13_000)}&date_from=2000-01-01`);
    await expect.poll(() => page.locator('#message').textContent()).toMatch(/^Too long to search: .* Shorten the query: this server takes at most 10,000 characters \(it has 13,000\)\.$/);
    expect(await searchBox().inputValue()).toBe('a'.repeat(13_000));
    expect(new URL(page.url()).search).toBe('?date_from=2000-01-01');
    expect(sent.filter((url) => url.includes('/retrieval/') && url.length > 10_000)).toEqual([]);
  });

  it("advises Ask for such a query when the server's --max-query-length takes it (read from /settings)", async () => {
    const roomy = await startServer(() => new ExtractiveGenerator(), { flags: ['--max-query-length', '20000'] });
    // Its own browser: the shared one refuses every host but the first server's.
    const roomyBrowser = await launchBrowser(roomy.url);
    try {
      const own = await roomyBrowser.newPage();
      await own.goto(`${roomy.url}/ui/?q=cells`);
      await expect.poll(() => own.getByTestId('result').count()).toBeGreaterThan(0);
      await own.getByRole('searchbox', { name: 'Search' }).fill('cells '.repeat(2100).trim());
      await own.getByRole('searchbox', { name: 'Search' }).press('Enter');
      await expect.poll(() => own.locator('#message').textContent()).toMatch(/ Shorten them, or use Ask, which sends the question in the request body\.$/);
    } finally {
      await roomyBrowser.close();
      await roomy.close();
    }
  });

  it('a date typed just before a query refused as too long stays chosen for the next search', async () => {
    await withStoppedClock(async () => {
      const from = page.getByLabel('From', { exact: true });
      await from.fill('2015-01-01');
      await searchBox().fill('细胞'.repeat(1500));
      await searchBox().press('Enter');
      await expect.poll(() => page.locator('#message').textContent()).toMatch(/^Too long to search/);
      expect(await from.inputValue()).toBe('2015-01-01');
      await searchBox().fill('grid cells');
      await searchBox().press('Enter');
      await expect.poll(() => Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ q: 'grid cells', date_from: '2015-01-01' });
    });
  });

  it('a date typed just before a view refused as too long applies as its own view: the address, the count and the field agree', async () => {
    await withStoppedClock(async () => {
      const historyLength = () => page.evaluate(() => (globalThis as any).history.length);
      const historyBefore = await historyLength();
      const from = page.getByLabel('From', { exact: true });
      await from.fill('2015-01-01');
      await searchBox().fill('细胞'.repeat(1500));
      await searchBox().press('Enter');
      await expect.poll(() => page.locator('#message').textContent()).toMatch(/^Too long to search/);
      expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ q: 'cells', date_from: '2015-01-01' });
      await expect.poll(shownCount).toBe(await count('?date_from=2015-01-01'));
      expect(await page.locator('#message').isVisible()).toBe(true);
      // One history entry, and none more when the date's delay would have ended.
      await page.clock.runFor(1000);
      expect(await historyLength()).toBe(historyBefore + 1);
      expect(new URL(page.url()).searchParams.get('date_from')).toBe('2015-01-01');
      // The address alone brings the same view back.
      await page.reload();
      await expect.poll(shownCount).toBe(await count('?date_from=2015-01-01'));
      expect(await from.inputValue()).toBe('2015-01-01');
    });
  });

  it('when the dates of a refused view match nothing, the page says both: the refusal as an error, then that nothing matches as a notice', async () => {
    /** Each paragraph of the message line: its text and background (the container itself has none of its own). */
    const parts = (on: Page) =>
      on.locator('#message p').evaluateAll((paragraphs) => paragraphs.map((p) => ({ text: p.textContent, background: getComputedStyle(p).backgroundColor })));
    // Each kind alone, as the page shows it: a search refused as too long, and a listing that matches nothing.
    const alone = await browser.newPage();
    await alone.goto(`${server.url}/ui/?mode=list&date_from=2100-01-01`);
    await expect.poll(async () => (await parts(alone)).map((part) => part.text)).toEqual(['No article matches these filters.']);
    const [nothingMatches] = await parts(alone);
    await alone.getByRole('searchbox', { name: 'Search' }).fill('细胞'.repeat(1500));
    await alone.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await expect.poll(async () => (await parts(alone))[0]?.text).toMatch(/^Too long to search: /);
    const [refusal] = await parts(alone);
    await alone.close();
    expect(refusal!.background).not.toBe(nothingMatches!.background);

    await withStoppedClock(async () => {
      await page.getByLabel('From', { exact: true }).fill('2100-01-01');
      await searchBox().fill('细胞'.repeat(1500));
      await searchBox().press('Enter');
      await expect.poll(shownCount).toBe('0');
      await expect.poll(() => parts(page)).toEqual([refusal, nothingMatches]);
      expect(await page.locator('#message').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgba(0, 0, 0, 0)');
    }, '/ui/?mode=list');
  });

  it('an answer asked for while the dates of a refused view load is not overwritten by the refusal once they do', async () => {
    await withStoppedClock(async () => {
      // The dates' own view is slow to arrive: Ask comes first, and aborts it.
      await page.route('**/retrieval/article_listing**', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.continue().catch(() => undefined);
      });
      await page.getByLabel('From', { exact: true }).fill('2000-01-01');
      // Answerable, and too long for an address (each ? takes 3 characters there).
      await searchBox().fill(`What do place cells encode${'?'.repeat(4100)}`);
      await searchBox().press('Enter');
      await expect.poll(() => page.locator('#message').textContent()).toMatch(/^Too long to search/);
      await page.getByRole('button', { name: 'Ask', exact: true }).click();
      await expect.poll(() => page.getByTestId('answer').textContent(), { timeout: 15_000 }).not.toBe('');
      await expect.poll(() => page.locator('#stop-button').isHidden(), { timeout: 15_000 }).toBe(true);
      // Past the slow view's arrival, the answer has the page to itself.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await page.locator('#message').textContent()).toBe('');
      expect(await page.locator('#message').isHidden()).toBe(true);
    }, '/ui/?mode=list');
  });

  it('a date that alone would take the address over the limit is refused with the view: the field goes back to the address', async () => {
    // An address a few characters under the limit, which the date would pass.
    const address = `/ui/?q=${'a'.repeat(11_990 - '/ui/?q='.length)}`;
    await withStoppedClock(async () => {
      const from = page.getByLabel('From', { exact: true });
      await from.fill('2015-01-01');
      await searchBox().press('Enter');
      await expect.poll(() => page.locator('#message').textContent()).toMatch(/^Too long to search: the query and filters would take 12011 characters/);
      expect(new URL(page.url()).searchParams.has('date_from')).toBe(false);
      expect(await from.inputValue()).toBe('');
    }, address);
  });

  it('a request refused as too large (431, from a proxy say) reads as a sentence', async () => {
    await page.route('**/retrieval/article_count**', (route) => route.fulfill({ status: 431, body: '' }));
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(() => page.locator('#message').textContent()).toBe('Too long: the request is larger than the server accepts. Shorten the query or remove some filters.');
  });

  it('says so when one of its modules cannot be loaded (the server restarting mid-load)', async () => {
    await page.route('**/ui/js/results.js', (route) => route.abort('connectionreset'));
    await page.goto(`${server.url}/ui/?q=cells`);
    const message = page.locator('#message');
    await expect.poll(() => message.textContent()).toBe('Part of this page could not be loaded (the server may be restarting). Reload the page to try again.');
    expect(await message.isVisible()).toBe(true);
    // In the style of an error, as the page's own errors are.
    const paragraphs = message.locator('p.error');
    expect(await paragraphs.count()).toBe(1);
    expect(await paragraphs.evaluate((paragraph) => getComputedStyle(paragraph).backgroundColor)).not.toBe('rgba(0, 0, 0, 0)');
  });

  it('says that the page needs JavaScript when the browser runs none', async () => {
    const scriptless = await launchBrowser(server.url, undefined, { javaScriptEnabled: false });
    try {
      const bare = await scriptless.newPage();
      await bare.goto(`${server.url}/ui/`);
      const notice = bare.locator('.noscript');
      expect(await notice.isVisible()).toBe(true);
      expect(await notice.textContent()).toMatch(/^This page needs JavaScript/);
      // Where the link leads, as the browser reads its relative address.
      expect(await bare.getByRole('link', { name: '/openapi.json' }).evaluate((a) => (a as { href: string }).href)).toBe(`${server.url}/openapi.json`);
    } finally {
      await scriptless.close();
    }
  });

  it('fits a narrow screen without sideways scrolling', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${server.url}/ui/?q=place%20cells&topics=hippocampus`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  it('/docs lists every operation of /openapi.json and tries one against the server', async () => {
    const spec = await api('/openapi.json');
    const operations = Object.values(spec.paths as Record<string, Record<string, unknown>>).flatMap((item) =>
      Object.keys(item).filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method)),
    );
    await page.goto(`${server.url}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBe(operations.length);
    const countOperation = page.locator('details.operation').filter({ has: page.locator('code', { hasText: /^\/retrieval\/article_count$/ }) });
    await countOperation.locator(':scope > summary').click();
    await countOperation.getByRole('textbox', { name: 'article_types (query)' }).fill('review-article');
    await countOperation.getByRole('button', { name: 'Send' }).click();
    const expected = await api('/retrieval/article_count?article_types=review-article');
    await expect.poll(() => countOperation.locator('pre.docs-answer').textContent()).toBe(`HTTP 200 OK\n${JSON.stringify(expected, null, 2)}`);
  });

  it('/docs: a second Send shows its own answer, not a slower answer to the first', async () => {
    let releaseFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      void page.route('**/retrieval/article_count?article_types=review-article', (route) => {
        releaseFirst = () => void route.continue().catch(() => undefined);
        resolve();
      });
    });
    await page.goto(`${server.url}/docs`);
    const countOperation = page.locator('details.operation').filter({ has: page.locator('code', { hasText: /^\/retrieval\/article_count$/ }) });
    await countOperation.locator(':scope > summary').click();
    const types = countOperation.getByRole('textbox', { name: 'article_types (query)' });
    const output = countOperation.locator('pre.docs-answer');
    await types.fill('review-article');
    await countOperation.getByRole('button', { name: 'Send' }).click();
    await firstHeld;
    await types.fill('research-article');
    await countOperation.getByRole('button', { name: 'Send' }).click();
    const second = `HTTP 200 OK\n${JSON.stringify(await api('/retrieval/article_count?article_types=research-article'), null, 2)}`;
    await expect.poll(() => output.textContent()).toBe(second);
    releaseFirst();
    await page.waitForTimeout(500);
    expect(await output.textContent()).toBe(second);
  });

  it('/docs fits a narrow screen, every operation open, without sideways scrolling', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${server.url}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBeGreaterThan(10);
    await page.evaluate(() => document.querySelectorAll('details').forEach((details: { open: boolean }) => (details.open = true)));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  it('makes no request to any other host (and the guard that checks it does see one)', async () => {
    expect(browser.foreignRequests).toEqual([]);
    const probe = await browser.newPage();
    await probe.goto('http://other-host.test/').catch(() => undefined);
    await probe.close();
    expect(browser.foreignRequests).toEqual(['http://other-host.test/']);
    browser.foreignRequests.length = 0;
  });
});
