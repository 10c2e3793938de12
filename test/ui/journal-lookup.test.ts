/**
 * Enter on free text in the journals filter looks up the best-matching journal, then adds it to the view. An answer
 * that arrives after the view changed (Back, another filter, a new search) must change nothing: its journal belongs
 * to the view it was typed in, not to the one on screen. Each test holds the lookup until the view has changed.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, SKIP_REASON, holdFirst, settle, startServerAndBrowser, type Browser, type UiServer } from './browser.js';

/** Free text matching several journals' names; no ISSN, so Enter looks the best one up. */
const FREE_TEXT = 'neuro';

describe.skipIf(!HAS_CHROMIUM)(`the journal looked up for free text in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let close: (() => Promise<void>) | undefined;
  let page: Page;
  let bestIssn: string;

  const address = () => new URL(page.url()).searchParams;
  const journalChips = () => page.locator('[data-filter="journals"] .chips li');
  const message = () => page.locator('#message');
  const searchBox = () => page.getByRole('searchbox', { name: 'Search' });
  const search = async (query: string) => {
    await searchBox().fill(query);
    await searchBox().press('Enter');
    await expect.poll(() => address().get('q')).toBe(query);
  };
  /** Types `text` in the journals field and waits for the type-ahead's own request to be answered; resolves with the field. */
  const typeJournal = async (text = FREE_TEXT) => {
    const field = page.getByRole('combobox', { name: 'Journals' });
    const suggested = page.waitForResponse('**/suggestions/journal?*');
    await field.fill(text);
    await suggested;
    return field;
  };
  /** Types `text`, then presses Enter with no suggestion chosen: that lookup is held; resolves with the means to let it go. */
  const lookUpHeld = async (text = FREE_TEXT) => {
    const field = await typeJournal(text);
    const released = holdFirst(page, '**/suggestions/journal?*');
    await field.press('Enter');
    return released;
  };

  beforeAll(async () => {
    ({ server, browser, close } = await startServerAndBrowser());
    const suggestions = await server.fixture.app.inject({ url: `/suggestions/journal?keywords=${FREE_TEXT}&limit=8` });
    bestIssn = suggestions.json()[0].journal_issn;
  });
  afterAll(() => close?.());
  beforeEach(async () => {
    page = await browser.newPage();
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
  });
  afterEach(async () => {
    await page.close();
  });

  it('is added to the view it was typed in once it arrives', async () => {
    const release = await lookUpHeld();
    release();
    await expect.poll(() => address().getAll('journals')).toEqual([bestIssn]);
    expect(address().get('q')).toBe('cells');
    await expect.poll(() => journalChips().count()).toBe(1);
  });

  it('is added to the view of a question answered before it was typed (an Ask stops that view\'s results, not its lookups)', async () => {
    await searchBox().fill('What do grid cells encode?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect.poll(() => address().get('ask')).toBe('What do grid cells encode?');
    await expect.poll(() => page.getByTestId('answer').getAttribute('aria-busy')).toBe('false');
    await (await typeJournal()).press('Enter');
    await expect.poll(() => address().getAll('journals')).toEqual([bestIssn]);
  });

  it('changes nothing once Back has shown the view before', async () => {
    await search('grid cells');
    const release = await lookUpHeld();
    await page.goBack();
    await expect.poll(() => address().get('q')).toBe('cells');
    release();
    await settle(page);
    expect(address().getAll('journals')).toEqual([]);
    expect(address().get('q')).toBe('cells');
    expect(await journalChips().count()).toBe(0);
    expect(await message().isVisible()).toBe(false);
  });

  it('changes nothing once another filter has made another view', async () => {
    const release = await lookUpHeld();
    const topic = page.locator('[data-filter="topics"] input');
    await topic.fill('memory');
    await topic.press('Enter');
    await expect.poll(() => address().getAll('topics')).toEqual(['memory']);
    release();
    await settle(page);
    expect(address().getAll('journals')).toEqual([]);
    expect(address().getAll('topics')).toEqual(['memory']);
    expect(await journalChips().count()).toBe(0);
  });

  it('changes nothing once a new search has made another view', async () => {
    const release = await lookUpHeld();
    await search('grid cells');
    release();
    await settle(page);
    expect(address().getAll('journals')).toEqual([]);
    expect(address().get('q')).toBe('grid cells');
    expect(await journalChips().count()).toBe(0);
  });

  it('does not say, over the view that replaced it, that no journal matched', async () => {
    await search('grid cells');
    const release = await lookUpHeld('zzzqqq');
    await page.goBack();
    await expect.poll(() => address().get('q')).toBe('cells');
    release();
    await settle(page);
    expect(await message().isVisible()).toBe(false);
  });
});
