/**
 * The page behind a reverse proxy that serves the server under a path (`http://proxy/base/*` to the
 * server's `/*`, the prefix stripped): the redirects, the page's files, its searches, suggestions,
 * Ask's event stream, the archive cart and /docs all stay under `/base/`, with nothing in the
 * server told about the prefix. The proxy answers 404 to, and records, every request outside it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { unzip } from '../archive/unzip.js';
import { HAS_CHROMIUM, SKIP_REASON, createNeuroLab, launchBrowser, startServer, type Browser, type UiServer } from './browser.js';

const PREFIX = '/base';
const WRITER = 'proxy-writer-token';
const AUTH = {
  tokens: { [WRITER]: { realm: 'local', subject: 'writer' } },
  acls: { '/': { anonymous: ['resources/read'], 'local/writer': ['*'] } },
};

interface PrefixProxy {
  /** The proxy's origin (`http://127.0.0.1:PORT`). */
  origin: string;
  /** Every request target that was not under the prefix (answered 404): a URL the page built against `/`. */
  strays: string[];
  close(): Promise<void>;
}

/** A proxy forwarding `${PREFIX}/x` to the server's `/x`, headers and bodies as they come (event streams included). */
async function startPrefixProxy(serverUrl: string): Promise<PrefixProxy> {
  const upstream = new URL(serverUrl);
  const strays: string[] = [];
  const proxy = http.createServer((request, response) => {
    const target = request.url ?? '';
    if (!target.startsWith(`${PREFIX}/`)) {
      strays.push(`${request.method} ${target}`);
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not under the proxy prefix');
      return;
    }
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: target.slice(PREFIX.length), headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    strays,
    close: () => {
      proxy.closeAllConnections();
      return new Promise((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe.skipIf(!HAS_CHROMIUM)(`the page behind a proxy serving the server under ${PREFIX}/ (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let proxy: PrefixProxy;
  let browser: Browser;
  let downloads: string;
  let page: Page;

  const api = async (url: string) => (await server.fixture.app.inject({ url })).json();
  const base = () => `${proxy.origin}${PREFIX}`;
  const shownCount = () => page.getByTestId('article-count').textContent();
  const searchBox = () => page.getByRole('searchbox', { name: 'Search' });
  /** Where a link of the page leads, resolved as the browser resolves it. */
  const linkTarget = (name: string | RegExp) => page.getByRole('link', { name }).evaluate((a) => (a as unknown as { href: string }).href);

  beforeAll(async () => {
    const extractive = new ExtractiveGenerator();
    server = await startServer(() => extractive, { auth: AUTH });
    await createNeuroLab(server.fixture.app, `Bearer ${WRITER}`);
    proxy = await startPrefixProxy(server.url);
    downloads = await mkdtemp(path.join(tmpdir(), 'litserve-proxy-downloads-'));
    // The browser's own host is the proxy's: a request straight to the server's port would be refused and recorded too.
    browser = await launchBrowser(proxy.origin, downloads);
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await server?.close();
    if (downloads) await rm(downloads, { recursive: true, force: true });
  });
  beforeEach(async () => {
    proxy.strays.length = 0;
    browser.foreignRequests.length = 0;
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page.close();
  });

  /** Nothing the test did asked for an address outside the prefix, or another host. */
  const expectEverythingUnderThePrefix = () => expect({ strays: proxy.strays, foreign: browser.foreignRequests }).toEqual({ strays: [], foreign: [] });

  it('redirects a browser from / and /ui to the page under the prefix, with relative Locations (query string kept)', async () => {
    const redirect = async (target: string) => {
      const response = await fetch(`${base()}${target}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      const location = response.headers.get('location');
      return { status: response.status, location, leadsTo: location === null ? null : new URL(location, `${base()}${target}`).href };
    };
    expect(await redirect('/')).toEqual({ status: 302, location: 'ui/', leadsTo: `${base()}/ui/` });
    expect(await redirect('/ui')).toEqual({ status: 301, location: 'ui/', leadsTo: `${base()}/ui/` });
    expect(await redirect('/ui?q=grid%20cells&mode=list')).toEqual({ status: 301, location: 'ui/?q=grid%20cells&mode=list', leadsTo: `${base()}/ui/?q=grid%20cells&mode=list` });
    expectEverythingUnderThePrefix();
  });

  it('loads the page from /base/: its count, a search kept in its address under the prefix, author suggestions, its links', async () => {
    await page.goto(`${base()}/`);
    expect(page.url()).toBe(`${base()}/ui/`);
    // The count is written by the page's script from the API: the modules loaded and their requests reached the server.
    await expect.poll(shownCount).toBe(String((await api('/retrieval/article_count')).article_count));

    await searchBox().fill('grid cells entorhinal');
    await searchBox().press('Enter');
    const hits: { article_id: string; article_title: string }[] = await api('/retrieval/?query=grid%20cells%20entorhinal&retriever_k=100');
    const articles = new Set(hits.map((hit) => hit.article_id)).size;
    expect(articles).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('result').count()).toBe(articles);
    expect(page.url()).toBe(`${base()}/ui/?q=grid+cells+entorhinal`);
    // The address the history holds is one the proxy serves: a reload shows the same results.
    await page.reload();
    await expect.poll(() => page.getByTestId('result').count()).toBe(articles);
    expect(await page.getByTestId('result').first().locator('h3').textContent()).toBe(hits[0]!.article_title);

    const [suggested] = await api('/suggestions/author?name=nun&limit=8');
    await page.getByRole('combobox', { name: 'Authors' }).fill('nun');
    await expect.poll(() => page.getByRole('option').first().textContent()).toBe(`${suggested.name}${suggested.docs_in_db} articles`);

    expect(await linkTarget('litserve')).toBe(`${base()}/ui/`);
    expect(await linkTarget('API reference')).toBe(`${base()}/docs`);
    expectEverythingUnderThePrefix();
  });

  it('streams an answer to Ask through the proxy', async () => {
    await page.goto(`${base()}/ui/`);
    await expect.poll(shownCount).not.toBe('…');
    await searchBox().fill('What do place cells encode?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect.poll(() => page.getByTestId('answer').getAttribute('aria-busy')).toBe('false');
    expect(await page.locator('#message').isHidden()).toBe(true);
    expect((await page.getByTestId('answer').textContent())!.length).toBeGreaterThan(0);
    expect(await page.getByTestId('citation').count()).toBeGreaterThan(0);
    expect(new URL(page.url()).pathname).toBe(`${PREFIX}/ui/`);
    expectEverythingUnderThePrefix();
  });

  it('lists the projects and downloads the archive ZIP through the proxy', async () => {
    await page.goto(`${base()}/ui/?q=dopamine%20reward`);
    const card = page.getByTestId('result').first();
    await expect.poll(() => card.count()).toBe(1);
    const id = (await card.getAttribute('data-article-id'))!;
    await card.getByRole('button', { name: 'Add to archive' }).click();
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option').allTextContents()).toEqual(['neuro/lab']);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download archive', exact: true }).click()]);
    const file = path.join(downloads, 'archive.zip');
    await download.saveAs(file);
    expect([...(await unzip(await readFile(file))).names]).toEqual([`articles/${id}.json`]);
    expectEverythingUnderThePrefix();
  });

  it('renders /base/docs from the OpenAPI document, and its Send reaches the server under the prefix', async () => {
    const spec = await api('/openapi.json');
    const operations = Object.values(spec.paths as Record<string, Record<string, unknown>>).flatMap((item) =>
      Object.keys(item).filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method)),
    );
    await page.goto(`${base()}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBe(operations.length);
    const countOperation = page.locator('details.operation').filter({ has: page.locator('code', { hasText: /^\/retrieval\/article_count$/ }) });
    await countOperation.locator(':scope > summary').click();
    await countOperation.getByRole('button', { name: 'Send' }).click();
    const expected = await api('/retrieval/article_count');
    await expect.poll(() => countOperation.locator('pre.docs-answer').textContent()).toBe(`HTTP 200 OK\n${JSON.stringify(expected, null, 2)}`);
    expect(await linkTarget('Back to the search page')).toBe(`${base()}/ui/`);
    expect(await linkTarget('/openapi.json')).toBe(`${base()}/openapi.json`);
    expectEverythingUnderThePrefix();
  });
});
