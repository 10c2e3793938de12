/**
 * A corpus written by an attacker, in Chromium: markup and script in every field, `javascript:` in the fields
 * that become links, direction controls that would make a DOI or a PubMed id read as another, a DOI whose
 * `..` parts the browser would resolve into another DOI, and a direction control in a section name. No script
 * may run, and each identifier must read as what its link holds.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testArticle } from './test-articles.js';
import { HAS_CHROMIUM, SKIP_REASON, demoArticles, readsLeftToRight, startServerAndBrowser, type Browser, type UiServer } from './browser.js';

const RIGHT_TO_LEFT_OVERRIDE = '\u202E';
const MARKUP_TITLE = '<img src=x onerror="window.pwned=1">';

const HOSTILE_ARTICLES = [
  testArticle('hostile-markup', {
    title: MARKUP_TITLE,
    authors: ['<script>window.pwned=2</script>'],
    journal_name: '<svg onload="window.pwned=3">',
    article_doi: 'javascript:window.pwned=4',
    pubmed_id: 'javascript:window.pwned=5',
    article_type: '<b onmouseover="window.pwned=6">type</b>',
    paragraphs: [{ section: '<i>Abstract</i>', text: 'Zebrafinch &lt;b&gt; <b>bold</b> &amp; <a href="javascript:window.pwned=7">link</a>' }],
  }),
  // Laid out, `10.1000/` + RLO + `gpj.live` reads "10.1000/evil.jpg", and `123` + RLO + `456` reads "123654".
  testArticle('hostile-bidi', { article_doi: `10.1000/${RIGHT_TO_LEFT_OVERRIDE}gpj.live`, pubmed_id: `123${RIGHT_TO_LEFT_OVERRIDE}456` }),
  // A browser resolves the `..` parts: the link would go to DOI 10.9999/evil (and PubMed's home), the text saying another.
  testArticle('hostile-dots', { article_doi: '10.1000/../../10.9999/evil', pubmed_id: '..' }),
  // Laid out after the name, `(1234-5678)` would read `)8765-4321(`: another ISSN.
  testArticle('hostile-journal', { journal_name: `Journal of Fakes${RIGHT_TO_LEFT_OVERRIDE}`, journal_issn: '1234-5678' }),
  testArticle('hostile-section', { paragraphs: [{ section: `${RIGHT_TO_LEFT_OVERRIDE}Abstract`, text: 'Zebrafinch tutors sing first.' }] }),
];

describe.skipIf(!HAS_CHROMIUM)(`a hostile corpus in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let page: Page;
  let close: (() => Promise<void>) | undefined;

  const card = (id: string) => page.locator(`[data-testid="result"][data-article-id="${id}"]`);

  beforeAll(async () => {
    ({ server, browser, close } = await startServerAndBrowser([...demoArticles(), ...HOSTILE_ARTICLES]));
  });
  afterAll(() => close?.());
  beforeEach(async () => {
    page = await browser.newPage();
    await page.goto(`${server.url}/ui/?q=zebrafinch`);
    await expect.poll(() => page.getByTestId('result').count()).toBe(HOSTILE_ARTICLES.length);
  });
  afterEach(async () => {
    await page.close();
  });

  it('shows markup in every field as text: no element is made of it, no script runs, no link leaves https', async () => {
    const hostile = card('hostile-markup');
    await hostile.hover();
    expect(await hostile.locator('h3').textContent()).toBe(MARKUP_TITLE);
    // Entities are text too: shown as written, not decoded.
    expect(await hostile.locator('.paragraph').textContent()).toBe('<i>Abstract</i> Zebrafinch &lt;b&gt; <b>bold</b> &amp; <a href="javascript:window.pwned=7">link</a>');
    expect(await hostile.locator('img, script, svg, b, i').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).pwned)).toBeUndefined();
    const hrefs = await hostile.locator('a').evaluateAll((links) => links.map((link) => link.href as string));
    expect(hrefs).toHaveLength(2);
    for (const href of hrefs) expect(new URL(href).protocol).toBe('https:');
  });

  it('a direction control in a DOI or a PubMed id is shown as its code point, and the identifier reads left to right', async () => {
    const doi = card('hostile-bidi').locator('a', { hasText: 'DOI' });
    expect(await doi.textContent()).toBe('DOI 10.1000/[U+202E]gpj.live');
    expect(await readsLeftToRight(doi, '10.1000/[U+202E]gpj.live')).toBe(true);
    // The link still goes to the DOI the corpus holds, control included.
    expect(decodeURIComponent(new URL((await doi.getAttribute('href'))!).pathname)).toBe(`/10.1000/${RIGHT_TO_LEFT_OVERRIDE}gpj.live`);
    const pubmed = card('hostile-bidi').locator('a', { hasText: 'PubMed' });
    expect(await pubmed.textContent()).toBe('PubMed 123[U+202E]456');
    expect(await readsLeftToRight(pubmed, '123[U+202E]456')).toBe(true);
  });

  it('an identifier with "." or ".." parts, which the browser would resolve into another, is shown but not linked', async () => {
    const dots = card('hostile-dots');
    expect(await dots.locator('a').count()).toBe(0);
    expect(await dots.locator('.actions').textContent()).toContain('DOI 10.1000/../../10.9999/evil');
    expect(await dots.locator('.actions').textContent()).toContain('PubMed ..');
  });

  it('a direction control in a section name does not move the paragraph before it', async () => {
    const body = card('hostile-section').locator('.paragraph');
    const section = await body.locator('.section').boundingBox();
    const text = await body.locator('bdi').last().boundingBox();
    expect(await body.locator('bdi').last().textContent()).toBe('Zebrafinch tutors sing first.');
    expect(section!.x).toBeLessThan(text!.x);
  });

  it('a direction control left open in a journal name does not reverse its ISSN, in the suggestions or in the chosen filter', async () => {
    const field = page.getByRole('combobox', { name: 'Journals' });
    await field.fill('Fakes');
    const option = page.getByRole('option').filter({ hasText: '1234-5678' });
    await expect.poll(() => option.count()).toBe(1);
    expect(await readsLeftToRight(option, '1234-5678')).toBe(true);
    await field.press('ArrowDown');
    await field.press('Enter');
    const chip = page.locator('[data-filter="journals"] .chips li');
    await expect.poll(() => chip.count()).toBe(1);
    expect(await chip.locator('bdi').first().textContent()).toBe(`Journal of Fakes${RIGHT_TO_LEFT_OVERRIDE} (1234-5678)`);
    expect(await readsLeftToRight(chip, '1234-5678')).toBe(true);
  });
});
