/**
 * What a user pastes or types, in Chromium: an access token holding a character no token has (a "€", a space
 * from "Bearer " pasted along), in the page's Archive panel and on /docs, and a path parameter of /docs that the
 * browser would resolve into another path (`..`), a query word longer than a narrow column or holding a direction
 * control. The page must go on working, keep its layout and say what is wrong; no request may go to another path
 * than the one shown.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { HAS_CHROMIUM, SKIP_REASON, createNeuroLab, launchBrowser, startServer, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const sessionStorage: any, document: any;

const WRITER = 'typed-writer-token';
const AUTH = {
  tokens: { [WRITER]: { realm: 'local', subject: 'writer' } },
  acls: { '/': { anonymous: ['resources/read'], 'local/writer': ['*'] } },
};

describe.skipIf(!HAS_CHROMIUM)(`typed and pasted input in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let page: Page;
  /** Every request the page made: method, path and query, and its Authorization header. */
  let requests: { method: string; target: string; authorization: string | undefined }[];

  const storedToken = () => page.evaluate(() => sessionStorage.getItem('litserve.accessToken'));

  beforeAll(async () => {
    server = await startServer(() => new ExtractiveGenerator(), { auth: AUTH });
    await createNeuroLab(server.fixture.app, `Bearer ${WRITER}`);
    browser = await launchBrowser(server.url);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage();
    requests = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      requests.push({ method: request.method(), target: url.pathname + url.search, authorization: request.headers().authorization });
    });
  });
  afterEach(async () => {
    await page.close();
    expect(browser.foreignRequests).toEqual([]);
  });

  it.each([
    ['a "€"', `${WRITER}€`, 'the character U+20AC'],
    ['a zero-width space', `${WRITER}\u200B`, 'the character U+200B'],
    ['"Bearer " before it', `Bearer ${WRITER}`, 'a space'],
  ])('a token holding %s is not used, the page says so, and searches go on without it', async (_, token, named) => {
    await page.goto(`${server.url}/ui/?q=place%20cells`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    await page.getByLabel('Access token').fill(token);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.locator('#cart-message').textContent()).toContain(`This access token holds ${named}, which no token has`);
    expect(await storedToken()).toBeNull();
    // The view made again after the change shows its results and its count, without a token.
    await expect.poll(() => page.locator('#article-count').textContent()).toMatch(/^\d+$/);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    expect(await page.locator('#message').isHidden()).toBe(true);
    expect(requests.every((request) => request.authorization === undefined)).toBe(true);

    // A good token then replaces it, and its projects are listed.
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.locator('#project option').allTextContents()).toEqual(['neuro/lab']);
    expect(await page.locator('#cart-message').textContent()).toBe('');
    expect(await storedToken()).toBe(WRITER);
  });

  it('a query holding a word longer than the column does not make the page scroll sideways (360 px wide)', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto(`${server.url}/ui/?q=${encodeURIComponent(`place cells ${'x'.repeat(95)}`)}`);
    // The status line repeats the query (its first 100 characters).
    await expect.poll(() => page.locator('#results-status').textContent()).toContain('x'.repeat(80));
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  });

  it('a direction control in the query (a link\'s `?q=`) does not reorder the status line\'s sentence around it', async () => {
    await page.goto(`${server.url}/ui/?q=${encodeURIComponent('place cells\u202E')}`);
    const status = page.locator('#results-status');
    await expect.poll(() => status.textContent()).toMatch(/for “place cells\u202E”\.$/);
    // Left edges of the closing quote and of the full stop after it, as laid out.
    const [quote, stop] = await status.evaluate((element) => {
      const text = element.textContent as string;
      const walker = document.createTreeWalker(element, 4);
      const edges: number[] = [];
      for (const offset of [text.length - 2, text.length - 1]) {
        let start = 0;
        walker.currentNode = element;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (offset < start + node.data.length) {
            const range = document.createRange();
            range.setStart(node, offset - start);
            range.setEnd(node, offset - start + 1);
            edges.push(range.getBoundingClientRect().left);
            break;
          }
          start += node.data.length;
        }
      }
      return edges;
    });
    expect(quote).toBeLessThan(stop!);
  });

  const operation = (method: string, path: string): Locator =>
    page.locator('details.operation').filter({ has: page.locator(':scope > summary .method', { hasText: new RegExp(`^${method}\\b`) }) }).filter({ has: page.locator(':scope > summary code', { hasText: new RegExp(`^${path.replace(/[{}]/g, '\\$&')}$`) }) });

  it('/docs: a token no request could carry is not used, and the operations are sent without it', async () => {
    await page.goto(`${server.url}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBeGreaterThan(10);
    await page.getByLabel('Access token').fill(`${WRITER}€`);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.locator('#docs-token-message').textContent()).toContain('the character U+20AC');
    expect(await storedToken()).toBeNull();
    const entry = operation('get', '/v1/projects/{org}/{project}');
    await entry.locator(':scope > summary').click();
    await entry.getByRole('textbox', { name: 'org (path)' }).fill('neuro');
    await entry.getByRole('textbox', { name: 'project (path)' }).fill('lab');
    await entry.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => entry.locator('pre.docs-answer').textContent()).toMatch(/^HTTP 200 OK\n/);
  });

  it('/docs: a path parameter "." or ".." is refused before sending, since the browser would send the request to another path', async () => {
    await page.goto(`${server.url}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBeGreaterThan(10);
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    const entry = operation('delete', '/v1/projects/{org}/{project}');
    await entry.locator(':scope > summary').click();
    await entry.getByRole('textbox', { name: 'org (path)' }).fill('neuro');
    await entry.getByRole('textbox', { name: 'project (path)' }).fill('..');
    const sentBefore = requests.length;
    await entry.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => entry.locator('pre.docs-answer').textContent()).toBe(
      'Not sent: the path parameter project cannot be "..", which the browser would resolve into another path.',
    );
    expect(requests.slice(sentBefore).filter((request) => request.method === 'DELETE')).toEqual([]);
  });

  it('/docs: an empty path parameter is refused before sending (it went as the literal "{id}")', async () => {
    await page.goto(`${server.url}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBeGreaterThan(10);
    const entry = operation('get', '/v1/projects/{org}/{project}');
    await entry.locator(':scope > summary').click();
    await entry.getByRole('textbox', { name: 'org (path)' }).fill('neuro');
    const sentBefore = requests.length;
    await entry.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => entry.locator('pre.docs-answer').textContent()).toBe('Not sent: the path parameter project is required: fill it in.');
    expect(requests.slice(sentBefore).filter((request) => request.target.startsWith('/v1/projects/'))).toEqual([]);
  });

  it('/docs: an archive created there shows its 201 and its id (a followed 303 had shown "HTTP 200" and the ZIP as text)', async () => {
    const resource = await server.fixture.app.inject({
      method: 'PUT',
      url: '/v1/resources/neuro/lab/_/docs-cell',
      headers: { authorization: `Bearer ${WRITER}`, 'content-type': 'application/json' },
      payload: { name: 'a cell' },
    });
    expect(resource.statusCode).toBe(201);
    await page.goto(`${server.url}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBeGreaterThan(10);
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    const entry = operation('post', '/v1/archives/{org}/{project}');
    await entry.locator(':scope > summary').click();
    await entry.getByRole('textbox', { name: 'org (path)' }).fill('neuro');
    await entry.getByRole('textbox', { name: 'project (path)' }).fill('lab');
    await entry.getByRole('textbox', { name: 'Request body (JSON)' }).fill(JSON.stringify({ resources: [{ '@type': 'Resource', resourceId: 'docs-cell' }] }));
    await entry.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => entry.locator('pre.docs-answer').textContent()).toMatch(/^HTTP 201 Created\n/);
    const shown = (await entry.locator('pre.docs-answer').textContent())!;
    const archive = JSON.parse(shown.slice(shown.indexOf('\n') + 1)) as { '@id': string; '@type': string | string[] };
    expect(archive['@id']).toMatch(/\/v1\/resources\/neuro\/lab\/_\//);
    expect(requests.filter((request) => request.target === '/v1/archives/neuro/lab' && request.method === 'POST')).toHaveLength(1);
  });

  it('/docs: a long answer says where it was cut and how long it was', async () => {
    await page.goto(`${server.url}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBeGreaterThan(10);
    const entry = operation('get', '/retrieval/article_listing');
    await entry.locator(':scope > summary').click();
    await entry.getByRole('textbox', { name: 'size (query)' }).fill('100');
    await entry.getByRole('textbox', { name: 'number_results (query)' }).fill('100');
    await entry.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => entry.locator('pre.docs-answer').textContent()).toMatch(/^HTTP 200 OK\n/);
    expect(await entry.locator('pre.docs-answer').textContent()).toMatch(/\n… cut here: the first 20,000 of [\d,]+ characters are shown\.$/);
  });
});
