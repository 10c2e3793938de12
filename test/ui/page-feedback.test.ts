/**
 * What the page tells its reader when something is refused or fails, and how it reads to assistive technology:
 * the server's reason for finding nothing, a count that failed, an answer cut short, suggestions that could not be
 * had, a date still being typed, a token the server refuses, skip links and the names of controls.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { HAS_CHROMIUM, SKIP_REASON, launchBrowser, startServer, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const document: any;

const READER = 'feedback-reader-token';
const TOKENS = { [READER]: { realm: 'local', subject: 'reader' } };
/** Anonymous may read the literature: a token is needed only for archives. */
const OPEN_TO_READ = { tokens: TOKENS, acls: { '/': { anonymous: ['resources/read'], 'local/reader': ['resources/read'] } } };
const REFUSED_TOKEN_NOTICE =
  'The access token in the Archive panel was refused by the server, so this shows only what anyone may read. Correct the token, or clear the "Access token" field to stop sending it.';

describe.skipIf(!HAS_CHROMIUM)(`the page's feedback in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let page: Page;

  const api = async (url: string) => (await server.fixture.app.inject({ url })).json();
  const count = (query = '') => api(`/retrieval/article_count${query}`).then((body) => String(body.article_count));
  const shownCount = () => page.getByTestId('article-count').textContent();
  const message = () => page.locator('#message').textContent();
  const searchBox = () => page.getByRole('searchbox', { name: 'Search' });

  beforeAll(async () => {
    const extractive = new ExtractiveGenerator();
    server = await startServer(() => extractive, { auth: OPEN_TO_READ });
    browser = await launchBrowser(server.url);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page.close();
  });

  it('a search the server finds nothing for, saying why (only stopwords), shows its reason', async () => {
    const refused = await server.fixture.app.inject({ url: '/retrieval/?query=the%20of%20and&retriever_k=100' });
    expect(refused.statusCode).toBe(404);
    const { reason } = refused.json().detail;
    expect(reason).toMatch(/no searchable word/);
    await page.goto(`${server.url}/ui/?q=the%20of%20and`);
    await expect.poll(message).toBe(`No article can be found: ${reason}.`);
    // Without a reason, the general sentence.
    await searchBox().fill('zzzqqqxxx');
    await searchBox().press('Enter');
    await expect.poll(message).toBe('No article matches this query and these filters. Change the query or loosen the filters.');
  });

  it('a filter the server refuses marks the count as failed instead of leaving "…"', async () => {
    for (const address of ['/ui/?q=cells&journals=1234', '/ui/?q=cells&date_from=2020-01-01&date_to=2010-01-01']) {
      await page.goto(`${server.url}${address}`);
      await expect.poll(message).toMatch(/^Invalid input \((journals|date_from)\)/);
      await expect.poll(shownCount).toBe('—');
      expect(await page.locator('#count-label').textContent()).toMatch(/the count failed/);
    }
    // A topic chip of stopwords only, added from the panel.
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    await page.getByRole('textbox', { name: 'Topics' }).fill('the');
    await page.getByRole('textbox', { name: 'Topics' }).press('Enter');
    await expect.poll(message).toMatch(/^Invalid input \(topics\)/);
    await expect.poll(shownCount).toBe('—');
    // The chip removed, the count comes back with its label.
    await page.getByRole('button', { name: 'Remove topic the' }).click();
    await expect.poll(shownCount).toBe(await count());
    expect(await page.locator('#count-label').textContent()).toBe('articles match the filters');
  });

  it("the count's label agrees with its number: 1 article matches, 0 or 2 articles match", async () => {
    // A day one article alone was published on, found in the listing.
    const { items } = await api('/retrieval/article_listing?size=100&page=1&number_results=1000');
    let lone = '';
    for (const { date } of items as { date: string | null }[]) {
      if (date && (await count(`?date_from=${date}&date_to=${date}`)) === '1') {
        lone = date;
        break;
      }
    }
    expect(lone).not.toBe('');
    for (const [filters, shown, label] of [
      [`date_from=${lone}&date_to=${lone}`, '1', 'article matches the filters'],
      ['date_from=1000-01-01&date_to=1000-01-02', '0', 'articles match the filters'],
      ['', await count(), 'articles match the filters'],
    ]) {
      await page.goto(`${server.url}/ui/?${filters}`);
      await expect.poll(shownCount).toBe(shown);
      expect(await page.locator('#count-label').textContent()).toBe(label);
    }
  });

  it('a count that fails for the same filters as the number shown does not keep that number', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    await page.route('**/retrieval/article_count**', (route) =>
      route.fulfill({ status: 503, headers: { 'content-type': 'application/json', 'retry-after': '2' }, body: '{"detail":{"code":2,"detail":"busy"}}' }),
    );
    await searchBox().fill('grid cells');
    await searchBox().press('Enter');
    await expect.poll(message).toMatch(/^The server is overloaded or restarting/);
    await expect.poll(shownCount).toBe('—');
  });

  it('an answer of the server cut short says it could not be read, not "Unexpected end of JSON input"', async () => {
    await page.route('**/retrieval/?query=**', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '[{"article_id":"a1","parag' }));
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(message).toBe("The server's answer could not be read (it was cut short or is not JSON). Try again.");
  });

  it('author suggestions that cannot be had (server down) say so under the field', async () => {
    await page.goto(`${server.url}/ui/`);
    await expect.poll(shownCount).toBe(await count());
    await page.route('**/suggestions/author?**', (route) => route.abort('connectionrefused'));
    const author = page.getByRole('combobox', { name: 'Authors' });
    await author.fill('nun');
    const note = page.locator('#author-options-note');
    await expect.poll(() => note.textContent()).toBe('No suggestions. The server could not be reached: check that it is running and try again.');
    expect(await note.getAttribute('role')).toBe('status');
    expect(await author.getAttribute('aria-describedby')).toBe('author-options-note');
    // Back up: the note goes with the next suggestions.
    await page.unroute('**/suggestions/author?**');
    await author.fill('nu');
    await expect.poll(() => page.getByRole('listbox', { name: 'Author suggestions' }).getByRole('option').count()).toBeGreaterThan(0);
    expect(await note.textContent()).toBe('');
  });

  it('a date whose year is still being typed is not applied when typing pauses; a complete one is', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    const countRequests: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/retrieval/article_count') countRequests.push(url.search);
    });
    const from = page.getByLabel('From', { exact: true });
    // Chromium's date field in the en-US order: month, day, then the first digit of the year (0002).
    await from.click();
    await page.keyboard.type('01012', { delay: 30 });
    expect(await from.inputValue()).toBe('0002-01-01');
    // Well past the delay after which a typed date applies.
    await page.waitForTimeout(1500);
    expect(new URL(page.url()).searchParams.get('date_from')).toBeNull();
    expect(countRequests).toEqual([]);
    await from.fill('2015-01-01');
    await expect.poll(shownCount).toBe(await count('?date_from=2015-01-01'));
    expect(new URL(page.url()).searchParams.get('date_from')).toBe('2015-01-01');
  });

  it('skip links lead to the results, the filters and the archive', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    const focused = () => page.evaluate(() => [document.activeElement?.tagName, document.activeElement?.textContent ?? '']);
    const skips: [string, string][] = [
      ['Skip to results', 'results'],
      ['Skip to filters', 'filters'],
      ['Skip to archive', 'archive'],
    ];
    // The first stops of the page, in this order.
    for (const [name] of skips) {
      await page.keyboard.press('Tab');
      expect(await focused()).toEqual(['A', name]);
    }
    for (const [name, target] of skips) {
      await page.getByRole('link', { name }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(target);
      // Visible once it has the focus.
      expect(await page.evaluate(() => document.activeElement.getBoundingClientRect().width)).toBeGreaterThan(0);
    }
    expect(await page.locator('#filters').getAttribute('aria-label')).toBe('Filters');
  });

  it("each card's archive button names its article", async () => {
    await page.goto(`${server.url}/ui/?q=dopamine%20reward`);
    const cards = page.getByTestId('result');
    await expect.poll(() => cards.count()).toBeGreaterThan(1);
    const title = (await cards.nth(1).locator('h3').textContent())!;
    const button = page.getByRole('button', { name: `Add to archive: ${title}`, exact: true });
    expect(await button.count()).toBe(1);
    expect(await button.textContent()).toBe('Add to archive');
    await button.click();
    expect(await page.getByRole('button', { name: `Remove from archive: ${title}`, exact: true }).count()).toBe(1);
    expect(await page.locator('#cart-list li').count()).toBe(1);
  });

  it('the article type counts are read as "N articles" from text, not from an aria-label on a span', async () => {
    await page.goto(`${server.url}/ui/`);
    const types: { article_type: string; docs_in_db: number }[] = await api('/suggestions/article_types');
    await expect.poll(() => page.locator('#type-list input').count()).toBe(types.length);
    expect(await page.locator('#type-list [aria-label]').count()).toBe(0);
    for (const { article_type: type, docs_in_db: n } of types) {
      const label = page.locator('#type-list label').filter({ has: page.locator(`input[value="${type}"]`) });
      // Seen: the number; read: "N articles", in the checkbox's name.
      expect(await label.locator('.count').textContent()).toBe(String(n));
      expect(await label.locator('.visually-hidden').textContent()).toBe(` ${n} article${n === 1 ? '' : 's'}`);
      expect(await page.getByRole('checkbox', { name: `${type} ${n} article${n === 1 ? '' : 's'}`, exact: true }).count()).toBe(1);
    }
  });

  it('a token the server does not know still lets anyone search where anonymous may read, and says it was refused', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(shownCount).toBe(await count());
    const ids = () => page.getByTestId('result').evaluateAll((cards) => cards.map((card) => (card as any).dataset.articleId));
    const anonymousIds = await ids();
    expect(anonymousIds.length).toBeGreaterThan(0);
    const notice = page.locator('#token-refused');
    expect(await notice.isVisible()).toBe(false);

    await page.getByLabel('Access token').fill('not-a-known-token');
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toBe(REFUSED_TOKEN_NOTICE);
    expect(await notice.getAttribute('role')).toBe('alert');
    await expect.poll(ids).toEqual(anonymousIds);
    expect(await shownCount()).toBe(await count());
    expect(await page.locator('#message').isVisible()).toBe(false);
    // A new search with the token still there: results too, the notice stays.
    await searchBox().fill('grid cells');
    await searchBox().press('Enter');
    const grid: { article_id: string }[] = await api('/retrieval/?query=grid%20cells&retriever_k=100');
    await expect.poll(ids).toEqual([...new Set(grid.map((hit) => hit.article_id))]);
    expect(await notice.isVisible()).toBe(true);
    // The archive's own requests (/v1) do not go without it: the field is marked refused, and the cart lists no
    // project, without a second message of its own beside the notice (it had said the refusal again).
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option').allTextContents()).toEqual(['(token not accepted)']);
    expect(await page.getByLabel('Access token').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#cart-message').textContent()).toBe('');

    // Cleared: the notice goes.
    await page.getByLabel('Access token').fill('');
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => notice.isVisible()).toBe(false);
    await expect.poll(ids).toEqual([...new Set(grid.map((hit) => hit.article_id))]);
    expect(await page.getByLabel('Access token').getAttribute('aria-invalid')).toBeNull();
  });

  it('a token the server does not know, where reading needs one, says the token was refused and is needed', async () => {
    const closed = await startServer(() => new ExtractiveGenerator(), { auth: { tokens: TOKENS, acls: { '/': { 'local/reader': ['resources/read'] } } } });
    // Its own browser: the shared one refuses every host but the first server's.
    const closedBrowser = await launchBrowser(closed.url);
    const closedPage = await closedBrowser.newPage();
    try {
      await closedPage.goto(`${closed.url}/ui/`);
      await closedPage.getByLabel('Access token').fill('not-a-known-token');
      await closedPage.getByLabel('Access token').press('Tab');
      await closedPage.getByRole('searchbox', { name: 'Search' }).fill('dopamine');
      await closedPage.getByRole('searchbox', { name: 'Search' }).press('Enter');
      await expect
        .poll(() => closedPage.locator('#message').textContent())
        .toBe('The access token was not accepted, and this server needs one to read: correct it in the "Access token" field of the Archive panel.');
      expect(await closedPage.locator('#token-refused').isVisible()).toBe(false);
      // The right token opens it.
      await closedPage.getByLabel('Access token').fill(READER);
      await closedPage.getByLabel('Access token').press('Tab');
      await expect.poll(() => closedPage.getByTestId('result').count()).toBeGreaterThan(0);
      expect(await closedPage.locator('#message').isVisible()).toBe(false);
    } finally {
      await closedBrowser.close();
      await closed.close();
    }
  });

  it('Ask with a token the server does not know answers where anonymous may read, and says the token was refused', async () => {
    await page.goto(`${server.url}/ui/`);
    await page.getByLabel('Access token').fill('not-a-known-token');
    await page.getByLabel('Access token').press('Tab');
    await searchBox().fill('What do place cells encode?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect.poll(() => page.getByTestId('citation').count()).toBeGreaterThan(0);
    expect(await page.locator('#token-refused').isVisible()).toBe(true);
    expect(await page.locator('#message').isVisible()).toBe(false);
  });
});
