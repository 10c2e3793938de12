/**
 * The page and /docs for the keyboard and for assistive technology, as the accessibility round tried them
 * (WCAG 2.1): a focus ring and a combobox's active option that can be seen, Tab out of an open suggestion
 * list, a filter's change said without a query, /docs announcing an answer's status line rather than its
 * 20,000 characters, required parameters marked as such, no smooth scroll for reduced motion, and a tab
 * title per view.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, SKIP_REASON, startServerAndBrowser } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const document: any, MutationObserver: any, getComputedStyle: (element: unknown, pseudo?: string) => Record<string, string>;

/** WCAG's contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (color: string) => {
    const [r, g, bl] = color.match(/\d+(\.\d+)?/g)!.slice(0, 3).map(Number).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high! + 0.05) / (low! + 0.05);
}

describe.skipIf(!HAS_CHROMIUM)(`accessibility of the page and /docs (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let setup: Awaited<ReturnType<typeof startServerAndBrowser>>;
  let page: Page;
  beforeAll(async () => {
    setup = await startServerAndBrowser();
  });
  afterAll(() => setup?.close());
  beforeEach(async () => {
    page = await setup.browser.newPage();
  });
  afterEach(() => page.close());

  it('draws the focus ring, and outlines the active suggestion, at 3:1 or more against their backgrounds (1.4.11)', async () => {
    await page.goto(`${setup.server.url}/ui/`);
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineColor);
    // The orange before, #ff9d00, was 2.1:1 on white.
    expect(contrast(ring, 'rgb(255, 255, 255)')).toBeGreaterThanOrEqual(3);
    expect(contrast(ring, 'rgb(246, 247, 249)')).toBeGreaterThanOrEqual(3);
    const field = await page.evaluate(() => getComputedStyle(document.querySelector('#journal-input')).borderTopColor);
    expect(contrast(field, 'rgb(255, 255, 255)')).toBeGreaterThanOrEqual(3);

    const journals = page.getByRole('combobox', { name: 'Journals' });
    await journals.fill('neuro');
    await expect.poll(() => page.locator('#journal-options [role="option"]').count()).toBeGreaterThan(1);
    await journals.press('ArrowDown');
    const active = await page.evaluate(() => {
      const style = getComputedStyle(document.querySelector('#journal-options [aria-selected="true"]'));
      return { style: style.outlineStyle, width: style.outlineWidth, color: style.outlineColor };
    });
    // A tint of 1.2:1 alone had told the option Enter takes.
    expect(active.style).toBe('solid');
    expect(parseFloat(active.width)).toBeGreaterThanOrEqual(2);
    expect(contrast(active.color, 'rgb(255, 255, 255)')).toBeGreaterThanOrEqual(3);
  });

  it('breaks no word of a suggestion that the list is wide enough for (1.4.10)', async () => {
    // "NeuroIma|ge" and "articl|es" had broken at 1280 px.
    await page.goto(`${setup.server.url}/ui/`);
    await page.getByRole('combobox', { name: 'Journals' }).fill('o');
    await expect.poll(() => page.locator('#journal-options [role="option"]').count()).toBeGreaterThan(1);
    const broken = await page.evaluate(() => {
      const split: string[] = [];
      for (const option of document.querySelectorAll('#journal-options [role="option"]')) {
        const walker = document.createTreeWalker(option, 4 /* NodeFilter.SHOW_TEXT */);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (const match of node.textContent.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const lines = new Set([...range.getClientRects()].map((rect: { top: number }) => Math.round(rect.top)));
            if (lines.size > 1) split.push(match[0]);
          }
        }
      }
      return split;
    });
    expect(broken).toEqual([]);
  });

  it('moves Tab on from a field whose suggestion list is open and scrolls, rather than to <body> (2.4.3)', async () => {
    await page.goto(`${setup.server.url}/ui/`);
    const journals = page.getByRole('combobox', { name: 'Journals' });
    await journals.fill('o');
    await expect.poll(() => page.locator('#journal-options [role="option"]').count()).toBeGreaterThan(1);
    expect(await page.evaluate(() => document.querySelector('#journal-options').scrollHeight > document.querySelector('#journal-options').clientHeight)).toBe(true);
    await journals.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('INPUT');
    expect(await page.evaluate(() => document.activeElement?.id)).not.toBe('journal-input');
  });

  it("says a filter's new count when there is no query, the only thing that changed (4.1.3)", async () => {
    await page.goto(`${setup.server.url}/ui/`);
    await page.getByRole('combobox', { name: 'Authors' }).fill('nun');
    await page.getByRole('combobox', { name: 'Authors' }).press('Enter');
    await expect.poll(() => page.locator('#results-status').textContent()).toMatch(/^\d+ articles? match(es)? the filters\.$/);
    expect(await page.locator('#results-status').getAttribute('role')).toBe('status');
  });

  it("asks for the token alone: a placeholder saying \"Bearer token\" had invited a pasted \"Bearer …\", which the page refuses", async () => {
    await page.goto(`${setup.server.url}/ui/`);
    expect(await page.getByLabel('Access token').getAttribute('placeholder')).toBe('The token alone, without "Bearer" (kept in this tab only)');
  });

  it('says what Add to archive and its undoing did, with the cart\'s size (4.1.3)', async () => {
    await page.goto(`${setup.server.url}/ui/?q=grid%20cells`);
    const first = page.getByTestId('result').first();
    const title = (await first.locator('h3').textContent())!.trim();
    await first.getByRole('button', { name: /^Add to archive/ }).click();
    await expect.poll(() => page.locator('#cart-message').textContent()).toMatch(/^Added to the archive: .+ \(1 article\)\.$/);
    await first.getByRole('button', { name: /^Remove from archive/ }).click();
    await expect.poll(() => page.locator('#cart-message').textContent()).toBe(`Removed from the archive: ${title} (0 articles).`);
  });

  it('after Back, puts the focus that was on a result on the results, and says the hint of a question brought back (2.4.3, 4.1.3)', async () => {
    await page.goto(`${setup.server.url}/ui/?q=grid%20cells`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    await page.getByRole('searchbox', { name: 'Search' }).fill('dopamine');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await expect.poll(() => page.locator('#results-status').textContent()).toContain('dopamine');
    await page.getByTestId('result').first().getByRole('button', { name: /^Add to archive/ }).focus();
    await page.goBack();
    await expect.poll(() => page.locator('#results-status').textContent()).toContain('grid cells');
    // It had fallen to <body> with the card it was on.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('results');

    // A question asked, then a search: Back brings the question, unanswered, and its hint is said.
    await page.getByRole('searchbox', { name: 'Search' }).fill('What do grid cells do?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect.poll(() => page.getByTestId('answer').textContent()).not.toBe('');
    await page.getByRole('searchbox', { name: 'Search' }).fill('place cells');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await expect.poll(() => page.locator('#results-status').textContent()).toContain('place cells');
    await page.goBack();
    await expect.poll(() => page.locator('#results-status').textContent()).toBe('Press Ask to answer this question again.');
  });

  it('titles the tab by its view: a search, a listing page, a question (2.4.2)', async () => {
    // Every view, each a history entry, had been titled "litserve".
    await page.goto(`${setup.server.url}/ui/?q=grid%20cells`);
    await expect.poll(() => page.title()).toBe('grid cells — litserve search');
    await page.goto(`${setup.server.url}/ui/?mode=list&page=2`);
    await expect.poll(() => page.title()).toBe('Articles, page 2 — litserve');
    await page.goto(`${setup.server.url}/ui/`);
    await expect.poll(() => page.title()).toBe('litserve');
  });

  it('does not smooth-scroll nor fade for a reader who asked for reduced motion (2.3.3)', async () => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto(`${setup.server.url}/ui/?q=grid%20cells`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.card')).transitionDuration)).toBe('0s');
  });

  it('/docs announces an answer by its status line and length, marks required parameters, and names the heading levels in order', async () => {
    await page.goto(`${setup.server.url}/docs`);
    const entry = page.locator('details.operation').filter({ has: page.locator(':scope > summary code', { hasText: /^\/retrieval\/$/ }) });
    await entry.locator(':scope > summary').click();
    expect(await entry.getByRole('textbox', { name: 'query (query)' }).getAttribute('required')).not.toBeNull();
    expect(await entry.getByRole('textbox', { name: 'retriever_k (query)' }).getAttribute('required')).toBeNull();
    await entry.getByRole('textbox', { name: 'query (query)' }).fill('cells');
    await entry.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => entry.getByRole('status').textContent()).toMatch(/^HTTP 200 OK; [\d,]+ characters shown below\.$/);
    // The answer itself is no live region: read out whole after every Send, it had been thousands of characters.
    expect(await entry.locator('pre.docs-answer').getAttribute('aria-live')).toBeNull();
    expect((await entry.locator('pre.docs-answer').textContent())!.length).toBeGreaterThan(1000);
    expect(await entry.getByRole('heading', { name: 'Responses' }).evaluate((h: any) => h.tagName)).toBe('H3');
  });

  it('says notices (a page past the end, a query matching nothing) as a status and failures as an alert (4.1.3)', async () => {
    // Every message had gone out through one assertive alert, notices included.
    await page.goto(`${setup.server.url}/ui/?mode=list&page=500`);
    await expect.poll(() => page.locator('[role="status"] > p.notice').textContent()).toMatch(/^Page 500 is past the end of the listing/);
    expect(await page.locator('#message [role="alert"] > p').count()).toBe(0);

    await page.goto(`${setup.server.url}/ui/?q=zqxwvy`);
    await expect.poll(() => page.locator('[role="status"] > p.notice').textContent()).toBe('No article matches this query and these filters. Change the query or loosen the filters.');
    expect(await page.locator('#message [role="alert"] > p').count()).toBe(0);

    await page.getByRole('searchbox', { name: 'Search' }).fill('细胞'.repeat(1500));
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await expect.poll(() => page.locator('#message [role="alert"] > p.error').textContent()).toMatch(/^Too long to search: /);
  });

  it('does not announce the same results again when the token changes, and answers "Clear filters" with nothing to clear without a new view (4.1.3)', async () => {
    await page.goto(`${setup.server.url}/ui/?q=grid%20cells`);
    await expect.poll(() => page.locator('#results-status').textContent()).toContain('grid cells');
    const said = await page.locator('#results-status').textContent();
    await page.evaluate(() => {
      const counters = ((globalThis as any).counters = { statusChanges: 0, refreshes: 0 });
      new MutationObserver(() => counters.statusChanges++).observe(document.querySelector('#results-status'), { childList: true, characterData: true, subtree: true });
      const list = document.querySelector('#result-list');
      new MutationObserver(() => list.getAttribute('aria-busy') === 'false' && counters.refreshes++).observe(list, { attributes: true, attributeFilter: ['aria-busy'] });
    });
    const counters = () => page.evaluate(() => (globalThis as any).counters as { statusChanges: number; refreshes: number });

    await page.getByLabel('Access token').fill('a-token-of-no-consequence');
    await page.getByLabel('Access token').press('Tab');
    // The view was read again with the token, and its sentence, the same, was left alone (it had been emptied and said again).
    await expect.poll(async () => (await counters()).refreshes).toBe(1);
    expect((await counters()).statusChanges).toBe(0);
    expect(await page.locator('#results-status').textContent()).toBe(said);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => page.locator('#message [role="status"]').textContent()).toBe('No filter is set: there is nothing to clear.');
    expect(await counters()).toEqual({ statusChanges: 0, refreshes: 1 });
    expect(page.url()).toBe(`${setup.server.url}/ui/?q=grid+cells`);
  });

  it('puts the focus on the cart when its last article is removed with its "×", not on the token field below (2.4.3)', async () => {
    await page.goto(`${setup.server.url}/ui/?q=grid%20cells`);
    await page.getByTestId('result').first().getByRole('button', { name: /^Add to archive/ }).click();
    await page.getByRole('list', { name: 'Articles in the archive' }).getByRole('button', { name: /^Remove .* from the archive$/ }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('archive');
  });

  it('makes the "×" buttons of chips and of the cart 24 px or more each way (2.5.8)', async () => {
    await page.goto(`${setup.server.url}/ui/?q=grid%20cells&topics=cells`);
    await page.getByTestId('result').first().getByRole('button', { name: /^Add to archive/ }).click();
    const sizes = await page.locator('.chips button, #cart-list button').evaluateAll((buttons) => buttons.map((button: any) => button.getBoundingClientRect()).map(({ width, height }: { width: number; height: number }) => ({ width, height })));
    expect(sizes.length).toBe(2);
    for (const size of sizes) expect(Math.min(size.width, size.height)).toBeGreaterThanOrEqual(24);
  });

  it('/docs at 320 px lays each parameter out as a block, its input the width of the screen, still a table to assistive technology (1.4.10)', async () => {
    await page.setViewportSize({ width: 320, height: 640 });
    await page.goto(`${setup.server.url}/docs`);
    const entry = page.locator('details.operation').filter({ has: page.locator(':scope > summary code', { hasText: /^\/retrieval\/article_listing$/ }) });
    await entry.locator(':scope > summary').click();
    const input = entry.getByRole('textbox', { name: 'number_results (query)' });
    // Four columns had left it 53 px, and the headers broken mid-word ("mean|ing").
    expect((await input.boundingBox())!.width).toBeGreaterThan(200);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    expect(await entry.getByRole('columnheader', { name: 'meaning' }).count()).toBe(1);
    const row = entry.getByRole('row').filter({ has: page.getByRole('textbox', { name: 'number_results (query)' }) });
    expect(await row.getByRole('cell').count()).toBe(4);
    // Each cell is led by its column's name, which is not read out (the column header says it).
    expect(await row.locator('td').first().evaluate((cell: any) => getComputedStyle(cell, '::before').content)).toContain('name: ');
  });
});
