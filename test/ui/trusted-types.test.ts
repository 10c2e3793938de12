/**
 * The page and /docs under their Content-Security-Policy with Trusted Types enforced: everything they do
 * (search, filters with suggestions, listing, archive cart, Ask, trying an operation) runs without one
 * policy violation, while a string written to an HTML sink is refused (so the policy is in force).
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, SKIP_REASON, startServerAndBrowser, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const document: any, trustedTypes: any;

interface Violation {
  directive: string;
  sample: string;
}

describe.skipIf(!HAS_CHROMIUM)(`the page's policy in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let page: Page;
  /** Console errors and uncaught exceptions of the page (Trusted Types refusals are reported as both). */
  let errors: string[];

  /** The `securitypolicyviolation` events the document has seen (recorded from before its first script runs). */
  const violations = (): Promise<Violation[]> => page.evaluate(() => (globalThis as any).violations);

  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, browser, close } = await startServerAndBrowser());
  });
  afterAll(() => close?.());
  beforeEach(async () => {
    page = await browser.newPage();
    errors = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.addInitScript(() => {
      const seen: Violation[] = [];
      (globalThis as any).violations = seen;
      document.addEventListener('securitypolicyviolation', (event: { violatedDirective: string; sample: string }) =>
        seen.push({ directive: event.violatedDirective, sample: event.sample }),
      );
    });
  });
  afterEach(async () => {
    await page.close();
  });

  it('searches, filters, lists, fills the archive and answers with no policy violation', async () => {
    await page.goto(`${server.url}/ui/`);
    const searchBox = page.getByRole('searchbox', { name: 'Search' });
    await searchBox.fill('place cells hippocampus');
    await searchBox.press('Enter');
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(1);
    expect(await page.getByTestId('result').first().locator('mark').count()).toBeGreaterThan(0);

    await page.getByRole('checkbox', { name: /^research-article/ }).check();
    const topics = page.getByRole('textbox', { name: 'Topics' });
    await topics.fill('hippocampus');
    await topics.press('Enter');
    await expect.poll(() => page.getByRole('button', { name: 'Remove topic hippocampus' }).count()).toBe(1);
    await page.getByRole('combobox', { name: 'Authors' }).pressSequentially('Lind');
    await expect.poll(() => page.getByRole('option').count()).toBeGreaterThan(0);
    await page.getByRole('combobox', { name: 'Authors' }).press('Escape');

    await page.getByRole('button', { name: 'List articles' }).click();
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    await page.getByTestId('result').first().getByRole('button', { name: 'Add to archive' }).click();
    await expect.poll(() => page.locator('#cart-size').textContent()).toBe('(1)');

    await searchBox.fill('What do place cells encode?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect.poll(() => page.getByTestId('answer').getAttribute('aria-busy')).toBe('false');
    expect((await page.getByTestId('answer').textContent())!.length).toBeGreaterThan(0);

    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);

    // The policy is in force: markup written as a string is refused and reported, and no policy may be made to allow it.
    const refused = await page.evaluate(() => {
      const outcomes: string[] = [];
      try {
        document.body.insertAdjacentHTML('beforeend', '<b id="injected">x</b>');
        outcomes.push('markup written');
      } catch (error) {
        outcomes.push((error as Error).name);
      }
      try {
        trustedTypes.createPolicy('bypass', { createHTML: (text: string) => text });
        outcomes.push('policy made');
      } catch (error) {
        outcomes.push((error as Error).name);
      }
      return outcomes;
    });
    expect(refused).toEqual(['TypeError', 'TypeError']);
    expect(await page.locator('#injected').count()).toBe(0);
    await expect.poll(async () => (await violations()).map((v) => v.directive)).toEqual(['require-trusted-types-for', 'trusted-types']);
  });

  it('/docs renders the API reference and sends a trial request with no policy violation', async () => {
    await page.goto(`${server.url}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBeGreaterThan(10);
    const countOperation = page.locator('details.operation').filter({ has: page.locator('code', { hasText: /^\/retrieval\/article_count$/ }) });
    await countOperation.locator(':scope > summary').click();
    await countOperation.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => countOperation.locator('pre.docs-answer').textContent()).toMatch(/^HTTP 200 OK\n/);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
  });
});
