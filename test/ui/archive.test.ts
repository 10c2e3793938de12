/**
 * The archive cart in Chromium: articles added from result cards, an access
 * token kept in sessionStorage only, the projects that token may write, and a
 * ZIP made through /v1/archives, downloaded and unzipped.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArticleInput } from '../../src/corpus/model.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { IndexWriter } from '../../src/search/index-writer.js';
import { unzip } from '../archive/unzip.js';
import { HAS_CHROMIUM, SKIP_REASON, demoArticles, holdFirst, launchBrowser, startServer, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const sessionStorage: any, localStorage: any, document: any;

const WRITER = 'ui-writer-token';
const READER = 'ui-reader-token';
const AUTH = {
  tokens: { [WRITER]: { realm: 'local', subject: 'writer' }, [READER]: { realm: 'local', subject: 'reader' } },
  acls: { '/': { anonymous: ['resources/read'], 'local/writer': ['*'], 'local/reader': ['resources/read'] } },
};

interface CartSetup {
  server: UiServer;
  browser: Browser;
  downloads: string;
}

/** A server with the org `neuro` and its `projects` made by the writer, and Chromium saving downloads to a fresh directory. */
async function cartSetup(projects: string[], articles?: ArticleInput[]): Promise<CartSetup> {
  const extractive = new ExtractiveGenerator();
  const server = await startServer(() => extractive, { auth: AUTH }, articles);
  for (const url of ['/v1/orgs/neuro', ...projects.map((project) => `/v1/projects/neuro/${project}`)]) {
    const created = await server.fixture.app.inject({ method: 'PUT', url, headers: { authorization: `Bearer ${WRITER}`, 'content-type': 'application/json' }, payload: '{}' });
    expect(created.statusCode).toBe(201);
  }
  const downloads = await mkdtemp(path.join(tmpdir(), 'litserve-downloads-'));
  return { server, browser: await launchBrowser(server.url, downloads), downloads };
}

async function closeCartSetup({ server, browser, downloads }: Partial<CartSetup>): Promise<void> {
  await browser?.close();
  await server?.close();
  if (downloads) await rm(downloads, { recursive: true, force: true });
}

describe.skipIf(!HAS_CHROMIUM)(`archive cart in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let downloads: string;

  beforeAll(async () => ({ server, browser, downloads } = await cartSetup(['lab1', 'lab2'])));
  afterAll(() => closeCartSetup({ server, browser, downloads }));

  const chooseTwoArticles = async (page: Page) => {
    await page.goto(`${server.url}/ui/?q=dopamine%20reward`);
    const cards = page.getByTestId('result');
    await expect.poll(() => cards.count()).toBeGreaterThan(2);
    const ids = [await cards.nth(0).getAttribute('data-article-id'), await cards.nth(2).getAttribute('data-article-id')] as string[];
    await cards.nth(0).getByRole('button', { name: 'Add to archive' }).click();
    await cards.nth(2).getByRole('button', { name: 'Add to archive' }).click();
    await expect.poll(() => page.locator('#cart-list li').count()).toBe(2);
    return ids;
  };

  it('downloads the chosen articles as a ZIP made in a project the token may write', async () => {
    const page = await browser.newPage();
    const archiveRequests: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/v1/archives')) archiveRequests.push(`${request.method()} ${url.pathname} ${request.headers().authorization}`);
    });
    const ids = await chooseTwoArticles(page);
    expect(await page.locator('#cart-size').textContent()).toBe('(2)');

    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option').allTextContents()).toEqual(['neuro/lab1', 'neuro/lab2']);
    await page.getByLabel('Project', { exact: true }).selectOption('neuro/lab2');
    // The token stays in this tab's session: not in localStorage, not in the URL.
    expect(await page.evaluate(() => sessionStorage.getItem('litserve.accessToken'))).toBe(WRITER);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(WRITER);
    expect(page.url()).not.toContain(WRITER);

    // Pressed from the keyboard: the button keeps the focus (disabled while the archive was made, it had thrown it to <body>, WCAG 2.4.3).
    await page.getByRole('button', { name: 'Download archive', exact: true }).focus();
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    const file = path.join(downloads, 'archive.zip');
    await download.saveAs(file);
    const zip = await unzip(await readFile(file));
    expect([...zip.names].sort()).toEqual(ids.map((id) => `articles/${id}.json`).sort());
    for (const id of ids) {
      const resource = JSON.parse(zip.entries.get(`articles/${id}.json`)!.toString());
      expect(JSON.stringify(resource)).toContain(id);
    }
    await expect.poll(() => page.locator('#cart-message').textContent()).toBe('Archive of 2 articles downloaded.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('download-archive');

    // Made in the chosen project, with the token.
    expect(archiveRequests).toEqual([
      expect.stringMatching(new RegExp(`^PUT /v1/archives/neuro/lab2/cart-\\w+ Bearer ${WRITER}$`)),
      expect.stringMatching(new RegExp(`^GET /v1/archives/neuro/lab2/cart-\\w+ Bearer ${WRITER}$`)),
    ]);
    await page.close();
  });

  it('the archive button of a card names what it will do, and is not also a pressed toggle', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/ui/?q=dopamine%20reward`);
    const card = page.getByTestId('result').first();
    await expect.poll(() => card.count()).toBe(1);
    const button = card.locator('button.add-to-archive');
    expect([await button.textContent(), await button.getAttribute('aria-pressed')]).toEqual(['Add to archive', null]);
    await button.click();
    expect([await button.textContent(), await button.getAttribute('aria-pressed')]).toEqual(['Remove from archive', null]);
    await button.click();
    await page.close();
  });

  it('removing an article from the cart with the keyboard keeps the focus in the cart', async () => {
    const page = await browser.newPage();
    await chooseTwoArticles(page);
    const titles = await page.locator('#cart-list li').allTextContents();
    const focused = () => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label') ?? (globalThis as any).document.activeElement?.id);
    await page.locator('#cart-list button').first().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#cart-list li').count()).toBe(1);
    expect(await focused()).toBe(`Remove ${titles[1]!.replace(/×$/, '')} from the archive`);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#cart-list li').count()).toBe(0);
    // On the cart itself, "Archive (0)", not on the token field below it.
    expect(await focused()).toBe('archive');
    await page.close();
  });

  it('a change to the cart while an archive is being made neither enables a second download nor changes what is reported', async () => {
    const page = await browser.newPage();
    let creations = 0;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/v1/archives/**', async (route) => {
      if (route.request().method() === 'PUT') {
        creations++;
        await released;
      }
      await route.continue();
    });
    const ids = await chooseTwoArticles(page);
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option').allTextContents()).toEqual(['neuro/lab1', 'neuro/lab2']);
    const downloadButton = page.getByRole('button', { name: 'Download archive', exact: true });
    const downloaded = page.waitForEvent('download');
    await downloadButton.click();
    await expect.poll(() => creations).toBe(1);
    // A third article added while the archive of the first two is being made.
    await page.getByTestId('result').nth(1).getByRole('button', { name: 'Add to archive' }).click();
    await expect.poll(() => page.locator('#cart-list li').count()).toBe(3);
    expect(await downloadButton.isDisabled()).toBe(true);
    release();
    const download = await downloaded;
    const zip = await unzip(await readFile((await download.path())!));
    expect([...zip.names].sort()).toEqual(ids.map((id) => `articles/${id}.json`).sort());
    await expect.poll(() => page.locator('#cart-message').textContent()).toBe('Archive of 2 articles downloaded.');
    expect(await downloadButton.isDisabled()).toBe(false);
    expect(creations).toBe(1);
    await page.close();
  });

  it('a server closed to anonymous asks for a token, and the token opens the literature routes to the page', async () => {
    const closed = await startServer(() => new ExtractiveGenerator(), { auth: { tokens: AUTH.tokens, acls: { '/': { 'local/reader': ['resources/read'] } } } });
    // Its own browser: the shared one refuses every host but the first server's.
    const closedBrowser = await launchBrowser(closed.url);
    const page = await closedBrowser.newPage();
    try {
      await page.goto(`${closed.url}/ui/?q=dopamine`);
      await expect.poll(() => page.locator('#message').textContent()).toBe('This server needs an access token: enter yours in the "Access token" field of the Archive panel.');
      expect(await page.getByTestId('result').count()).toBe(0);
      await page.getByLabel('Access token').fill(READER);
      await page.getByLabel('Access token').press('Tab');
      const count = (await closed.fixture.app.inject({ url: '/retrieval/article_count', headers: { authorization: `Bearer ${READER}` } })).json().article_count;
      await expect.poll(() => page.getByTestId('article-count').textContent()).toBe(String(count));
      await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
      expect(await page.locator('#message').isVisible()).toBe(false);
      await expect.poll(() => page.locator('#type-list label').count()).toBeGreaterThan(0);
      // The token cleared: what was read with it goes, the article types included, as at a first load without one.
      await page.getByLabel('Access token').fill('');
      await page.getByLabel('Access token').press('Tab');
      await expect.poll(() => page.locator('#message').textContent()).toBe('This server needs an access token: enter yours in the "Access token" field of the Archive panel.');
      expect(await page.getByTestId('result').count()).toBe(0);
      expect(await page.locator('#type-list label').count()).toBe(0);
      expect(closedBrowser.foreignRequests).toEqual([]);
    } finally {
      await closedBrowser.close();
      await closed.close();
    }
  });

  it('the projects shown are those of the last token entered, even when an earlier token\'s listing answers later', async () => {
    const page = await browser.newPage();
    let releaseWriters = () => {};
    const writersHeld = new Promise<void>((resolve) => {
      void page.route('**/v1/projects?**', (route) => {
        if (route.request().headers().authorization !== `Bearer ${WRITER}`) return route.continue();
        releaseWriters = () => void route.continue().catch(() => undefined);
        resolve();
      });
    });
    await page.goto(`${server.url}/ui/`);
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    await writersHeld;
    await page.getByLabel('Access token').fill(READER);
    await page.getByLabel('Access token').press('Tab');
    const options = () => page.getByLabel('Project', { exact: true }).locator('option').allTextContents();
    await expect.poll(options).toEqual(['(no project this token may write)']);
    releaseWriters();
    await page.waitForTimeout(500);
    expect(await options()).toEqual(['(no project this token may write)']);
    await page.close();
  });

  it('a token that may write no project gets no project, and says so; a wrong token is marked and said once', async () => {
    const page = await browser.newPage();
    await chooseTwoArticles(page);
    await page.getByLabel('Access token').fill(READER);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option').allTextContents()).toEqual(['(no project this token may write)']);
    await page.getByRole('button', { name: 'Download archive', exact: true }).click();
    // A valid token is not told that a token is needed: it is told what it lacks.
    await expect
      .poll(() => page.locator('#cart-message').textContent())
      .toBe('This access token may write no project, and the archive is made in one: ask for write access (resources/write) to a project.');
    expect(await page.getByLabel('Access token').getAttribute('aria-invalid')).toBeNull();

    await page.getByLabel('Access token').fill('not-a-known-token');
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option').allTextContents()).toEqual(['(token not accepted)']);
    expect(await page.getByLabel('Access token').getAttribute('aria-invalid')).toBe('true');
    // Said once, above the results, where the literature's requests say it; the cart says it when Download is pressed.
    await expect.poll(() => page.locator('#token-refused').isVisible()).toBe(true);
    expect(await page.locator('#cart-message').textContent()).toBe('');
    await page.getByRole('button', { name: 'Download archive', exact: true }).click();
    await expect.poll(() => page.locator('#cart-message').textContent()).toBe('The access token was not accepted: correct it in the "Access token" field, or clear the field.');
    expect(browser.foreignRequests).toEqual([]);
    await page.close();
  });

  it('a deprecated project the token may write is listed as such, and takes the archive', async () => {
    const writer = { authorization: `Bearer ${WRITER}`, 'content-type': 'application/json' };
    const app = server.fixture.app;
    expect((await app.inject({ method: 'PUT', url: '/v1/projects/neuro/old', headers: writer, payload: '{}' })).statusCode).toBe(201);
    expect((await app.inject({ method: 'DELETE', url: '/v1/projects/neuro/old?rev=1', headers: writer })).statusCode).toBe(200);
    const page = await browser.newPage();
    const ids = await chooseTwoArticles(page);
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    const project = page.getByLabel('Project', { exact: true });
    await expect.poll(() => project.locator('option').allTextContents()).toEqual(['neuro/lab1', 'neuro/lab2', 'neuro/old (deprecated)']);
    await project.selectOption('neuro/old');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download archive', exact: true }).click()]);
    const file = path.join(downloads, 'deprecated-project.zip');
    await download.saveAs(file);
    expect([...(await unzip(await readFile(file))).names].sort()).toEqual(ids.map((id) => `articles/${id}.json`).sort());
    await page.close();
  });
});

describe.skipIf(!HAS_CHROMIUM)(`archive cart with article ids a short id cannot name (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let downloads: string;

  beforeAll(async () => {
    // A prefix ending in a colon (the README's `--id-prefix scifact:`), an escaped slash and a space: read as a short
    // id, the first names a scheme, the second the article `a/b…`, the third no IRI at all.
    const spellings = (id: string, i: number) => [`scifact:${id}`, `a%2F${id}`, `x y ${id}`][i % 3]!;
    ({ server, browser, downloads } = await cartSetup(['lab1'], demoArticles().map((article, i) => ({ ...article, article_id: spellings(article.article_id, i) }))));
  });
  afterAll(() => closeCartSetup({ server, browser, downloads }));

  it('archives each article by its full id', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/ui/?q=dopamine%20reward`);
    const cards = page.getByTestId('result');
    await expect.poll(() => cards.count()).toBeGreaterThan(2);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await cards.nth(i).getAttribute('data-article-id'))!);
      await cards.nth(i).getByRole('button', { name: 'Add to archive' }).click();
    }
    expect(new Set(ids.map((id) => id.slice(0, 2))).size).toBeGreaterThan(1);
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option').allTextContents()).toEqual(['neuro/lab1']);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download archive', exact: true }).click()]);
    const file = path.join(downloads, 'odd-ids.zip');
    await download.saveAs(file);
    const zip = await unzip(await readFile(file));
    // Such an id is no file name as it is: its file is named after it, `_` for each character a name may not hold,
    // with a hash of the id (archive-names.test.ts); each article is in a file of its own.
    expect(zip.names).toHaveLength(ids.length);
    for (const id of ids) {
      const named = zip.names.filter((name) => name.startsWith(`articles/${id.replace(/[^\w.-]/g, '_')}-`));
      expect(named).toHaveLength(1);
      expect(JSON.stringify(JSON.parse(zip.entries.get(named[0]!)!.toString()))).toContain(id);
    }
    await page.close();
  });
});

describe.skipIf(!HAS_CHROMIUM)(`archive cart holding an article deleted since (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let setup: Partial<CartSetup> = {};
  beforeAll(async () => (setup = await cartSetup(['lab1'])));
  afterAll(() => closeCartSetup(setup));

  it('names the article by its title, marks it, and stores no further archive when pressed again', async () => {
    const { server, browser } = setup as CartSetup;
    const page = await browser.newPage();
    const archiveAnswers: string[] = [];
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith('/v1/archives')) archiveAnswers.push(`${response.request().method()} ${response.status()}`);
    });
    await page.goto(`${server.url}/ui/?q=dopamine%20reward`);
    const cards = page.getByTestId('result');
    await expect.poll(() => cards.count()).toBeGreaterThan(1);
    const [goneId, keptId] = [await cards.nth(0).getAttribute('data-article-id'), await cards.nth(1).getAttribute('data-article-id')] as string[];
    const goneTitle = (await cards.nth(0).locator('h3').textContent())!.trim();
    await cards.nth(0).getByRole('button', { name: 'Add to archive' }).click();
    await cards.nth(1).getByRole('button', { name: 'Add to archive' }).click();
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option').allTextContents()).toEqual(['neuro/lab1']);

    const writer = await IndexWriter.open(server.fixture.indexDir);
    writer.delete(goneId);
    await writer.commit();
    expect((await server.fixture.index.reload()).switched).toBe(true);

    const download = page.getByRole('button', { name: 'Download archive', exact: true });
    const expected = `Not downloaded: "${goneTitle}" is no longer in the corpus (removed after it was added to the cart). Remove it from the cart (it is marked), then download again.`;
    await download.click();
    await expect.poll(() => page.locator('#cart-message').textContent()).toBe(expected);
    const marked = page.locator('#cart-list li', { hasText: '(no longer in the corpus)' });
    expect(await marked.count()).toBe(1);
    expect(await marked.locator('bdi').textContent()).toBe(goneTitle);
    expect(archiveAnswers).toEqual(['PUT 201', 'GET 404']);

    // Pressed again: the same archive is found and used, not another one stored.
    archiveAnswers.length = 0;
    await page.locator('#cart-message').evaluate((element) => (element.textContent = ''));
    await download.click();
    await expect.poll(() => page.locator('#cart-message').textContent()).toBe(expected);
    expect(archiveAnswers).toEqual(['PUT 409', 'GET 200', 'GET 404']);
    expect(await marked.count()).toBe(1);

    // Taken out of the cart while the ZIP is asked for: nothing left to mark, and the message says so.
    const held = holdFirst(page, '**/v1/archives/**', (route) => route.request().headers().accept === 'application/zip');
    await download.click();
    const release = await held;
    await marked.getByRole('button').click();
    release();
    await expect.poll(() => page.locator('#cart-message').textContent()).toBe('Not downloaded: an article taken out of the cart meanwhile is no longer in the corpus. Download again.');

    const [zipFile] = await Promise.all([page.waitForEvent('download'), download.click()]);
    const zip = await unzip(await readFile((await zipFile.path())!));
    expect(zip.names).toEqual([`articles/${keptId}.json`]);
    await page.close();
  });
});
