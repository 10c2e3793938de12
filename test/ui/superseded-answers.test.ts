/**
 * Answers that arrive after a newer view has started: a slower answer to an earlier query, listing page or token
 * must not replace what the page shows for the newer one, and its abort (or failure) must not be said as an error.
 * Each test holds the earlier answer until the later one is on the page, then lets it go.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { HAS_CHROMIUM, SKIP_REASON, holdFirst, launchBrowser, settle, startServer, type Browser, type UiServer } from './browser.js';

const READER = 'superseded-reader-token';
/** Anonymous may read the literature; a token the server does not know is refused, and the page reads without it. */
const OPEN_TO_READ = { tokens: { [READER]: { realm: 'local', subject: 'reader' } }, acls: { '/': { anonymous: ['resources/read'], 'local/reader': ['resources/read'] } } };

interface HoldingProxy {
  url: string;
  /** Resolves once the status and headers of a response to a path starting with `prefix` are sent, its body held back. */
  holdBody(prefix: string): Promise<void>;
  /** Sends the held body. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A proxy in front of the server that can send a response's status and headers and hold its body: a browser's fetch
 * has resolved then, and the page is still reading the body (an error's reason) when a newer view starts.
 */
async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  let heldPrefix: string | null = null;
  let holding = () => {};
  let release = () => {};
  const proxy = http.createServer((request, response) => {
    const upstream = http.request(new URL(request.url!, target), { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode!, answer.headers);
      response.on('close', () => answer.destroy());
      if (heldPrefix === null || !request.url!.startsWith(heldPrefix)) return void answer.pipe(response);
      heldPrefix = null;
      response.flushHeaders();
      release = () => void answer.pipe(response);
      holding();
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    holdBody: (prefix) =>
      new Promise<void>((resolve) => {
        heldPrefix = prefix;
        holding = resolve;
      }),
    release: () => release(),
    close: () => new Promise<void>((resolve) => (proxy.closeAllConnections(), proxy.close(() => resolve()))),
  };
}

describe.skipIf(!HAS_CHROMIUM)(`superseded answers in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let proxy: HoldingProxy;
  let browser: Browser;
  let page: Page;

  const api = async (url: string) => (await server.fixture.app.inject({ url })).json();
  const titles = () => page.getByTestId('result').locator('h3').allTextContents();
  const message = () => page.locator('#message');
  const searchBox = () => page.getByRole('searchbox', { name: 'Search' });
  const search = async (query: string) => {
    await searchBox().fill(query);
    await searchBox().press('Enter');
  };
  const bestTitles = async (query: string) => {
    const hits: { article_id: string; article_title: string }[] = await api(`/retrieval/?query=${encodeURIComponent(query)}&retriever_k=100`);
    const seen = new Set<string>();
    return hits.filter((hit) => !seen.has(hit.article_id) && seen.add(hit.article_id)).map((hit) => hit.article_title);
  };

  beforeAll(async () => {
    const extractive = new ExtractiveGenerator();
    server = await startServer(() => extractive, { auth: OPEN_TO_READ });
    proxy = await startHoldingProxy(server.url);
    browser = await launchBrowser(proxy.url);
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await server?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page.close();
  });

  it("a slower answer to the query before does not replace the results of the query in the field and the address", async () => {
    const released = holdFirst(page, '**/retrieval/?query=cells*');
    await page.goto(`${proxy.url}/ui/?q=cells`);
    const releaseCells = await released;
    await search('grid cells');
    const grid = await bestTitles('grid cells');
    await expect.poll(titles).toEqual(grid);
    releaseCells();
    await settle(page);
    expect(await titles()).toEqual(grid);
    expect(await page.locator('#results-status').textContent()).toMatch(/“grid cells”\.$/);
    expect(new URL(page.url()).searchParams.get('q')).toBe('grid cells');
    expect(await message().isVisible()).toBe(false);
  });

  it('a slower listing page does not replace the page turned to after it', async () => {
    await page.goto(`${proxy.url}/ui/?mode=list`);
    await expect.poll(() => page.locator('#page-label').textContent()).toMatch(/^Page 1 of /);
    const released = holdFirst(page, '**/retrieval/article_listing?*', (route) => new URL(route.request().url()).searchParams.get('page') === '2');
    await page.getByRole('button', { name: 'Next page' }).click();
    const releasePageTwo = await released;
    await page.getByRole('button', { name: 'Next page' }).click();
    const third: { pages: number; items: { article_title: string }[] } = await api('/retrieval/article_listing?page=3&size=10&number_results=1000');
    await expect.poll(() => page.locator('#page-label').textContent()).toBe(`Page 3 of ${third.pages}`);
    expect(await titles()).toEqual(third.items.map((item) => item.article_title));
    releasePageTwo();
    await settle(page);
    expect(await page.locator('#page-label').textContent()).toBe(`Page 3 of ${third.pages}`);
    expect(await titles()).toEqual(third.items.map((item) => item.article_title));
    expect(new URL(page.url()).searchParams.get('page')).toBe('3');
  });

  it("an abort while the earlier query's failure is being read says no error over the newer query's results", async () => {
    const headersSent = proxy.holdBody('/retrieval/?query=zzzqqqxxx');
    await page.goto(`${proxy.url}/ui/?q=zzzqqqxxx`);
    await headersSent;
    await search('grid cells');
    const grid = await bestTitles('grid cells');
    await expect.poll(titles).toEqual(grid);
    expect(await message().textContent()).toBe('');
    proxy.release();
    await settle(page);
    expect(await message().textContent()).toBe('');
    expect(await titles()).toEqual(grid);
  });

  it("the article types asked for with a token since replaced do not say, once they arrive, that this token was refused", async () => {
    await page.goto(`${proxy.url}/ui/?q=cells`);
    await expect.poll(titles).toEqual(await bestTitles('cells'));
    const released = holdFirst(page, '**/suggestions/article_types', (route) => route.request().headers().authorization === 'Bearer not-a-known-token');
    const token = page.getByLabel('Access token');
    await token.fill('not-a-known-token');
    await token.press('Tab');
    const releaseRefused = await released;
    await token.fill(READER);
    await token.press('Tab');
    const notice = page.locator('#token-refused');
    await expect.poll(() => notice.isVisible()).toBe(false);
    await expect.poll(() => page.locator('#type-list input').count()).toBeGreaterThan(0);
    releaseRefused();
    await settle(page);
    expect(await notice.isVisible()).toBe(false);
    expect(await message().textContent()).toBe('');
  });
});
