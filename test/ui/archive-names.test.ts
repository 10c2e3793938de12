/**
 * The archive's file names in Chromium, for article ids that cannot be file names as they are: ids that differ
 * only in characters a name cannot hold (`文章1`, `论文1`; `a/b` beside `a_b`), only in case (`Case`, `case`, one
 * file where names ignore case), a device name of Windows (`CON`), an id longer than a name may be. The archive
 * refuses a cart whose names meet or cannot be extracted: every article must have a file of its own.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testArticle } from './test-articles.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { unzip } from '../archive/unzip.js';
import { HAS_CHROMIUM, SKIP_REASON, createNeuroLab, demoArticles, launchBrowser, startServer, type Browser, type UiServer } from './browser.js';

const WRITER = 'names-writer-token';
const AUTH = {
  tokens: { [WRITER]: { realm: 'local', subject: 'writer' } },
  acls: { '/': { anonymous: ['resources/read'], 'local/writer': ['*'] } },
};
const ODD_IDS = ['文章1', '论文1', 'a/b', 'a_b', 'Case', 'case', 'CON', `long-${'x'.repeat(120)}`];
const PLAIN_ID = 'plain-id.2021';

/** The n-th article: a title and text of its own, so each card and entry can be told apart. */
const numbered = (id: string, n: number) =>
  testArticle(id, { title: `Zebrafinch song learning ${n}`, paragraphs: [{ section: 'Abstract', text: `Zebrafinch juveniles copy the song of tutor ${n}.` }] });

describe.skipIf(!HAS_CHROMIUM)(`archive file names in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let downloads: string;

  beforeAll(async () => {
    const articles = [...ODD_IDS, PLAIN_ID].map((id, n) => numbered(id, n));
    server = await startServer(() => new ExtractiveGenerator(), { auth: AUTH }, [...demoArticles(), ...articles]);
    await createNeuroLab(server.fixture.app, `Bearer ${WRITER}`);
    downloads = await mkdtemp(path.join(tmpdir(), 'litserve-downloads-'));
    browser = await launchBrowser(server.url, downloads);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (downloads) await rm(downloads, { recursive: true, force: true });
  });

  it('gives every article a file of its own, named by its id where the id can be a name', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/ui/?q=zebrafinch`);
    const ids = [...ODD_IDS, PLAIN_ID];
    await expect.poll(() => page.getByTestId('result').count()).toBe(ids.length);
    for (const id of ids) await page.locator(`[data-testid="result"][data-article-id="${id}"] button.add-to-archive`).click();
    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option').allTextContents()).toEqual(['neuro/lab']);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download archive', exact: true }).click()]);
    const file = path.join(downloads, 'archive.zip');
    await download.saveAs(file);
    await expect.poll(() => page.locator('#cart-message').textContent()).toBe(`Archive of ${ids.length} articles downloaded.`);
    const zip = await unzip(await readFile(file));
    const names = zip.names;
    expect(names).toHaveLength(ids.length);
    expect(names).toContain(`articles/${PLAIN_ID}.json`);
    // Each file holds its own article: the titles tell them apart.
    const titles = names.map((name) => JSON.parse(zip.entries.get(name)!.toString()).name);
    expect(titles.sort()).toEqual(ids.map((_, n) => `Zebrafinch song learning ${n}`).sort());
    await page.close();
  });
});
