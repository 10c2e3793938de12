/**
 * /docs in Chromium for what a JSON body and a GET do not cover: a file upload (a multipart/form-data body, its
 * binary part picked as a file and sent with the page's token), the HEAD each GET also answers, tried from
 * the GET's entry, and the media type a GET asks for. Run under the page's Content-Security-Policy, whose
 * violations would be recorded.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { HAS_CHROMIUM, SKIP_REASON, createNeuroLab, launchBrowser, startServer, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const document: any;

const WRITER = 'docs-writer-token';
const AUTH = {
  tokens: { [WRITER]: { realm: 'local', subject: 'writer' } },
  acls: { '/': { anonymous: ['resources/read'], 'local/writer': ['*'] } },
};
const writer = { authorization: `Bearer ${WRITER}` };
/** Bytes no text decoding would keep as they are: a NUL, invalid UTF-8, a CR LF (which a multipart body must not mangle). */
const BYTES = Buffer.from([0x00, 0xff, 0xfe, 0x0d, 0x0a, 0x2d, 0x2d, 0x41, 0xc3, 0x28]);

describe.skipIf(!HAS_CHROMIUM)(`/docs uploads, HEAD and Accept in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  const inject = (url: string, headers: Record<string, string> = writer) => server.fixture.app.inject({ url, headers });
  /** The entry of the operation `method path` (a GET's entry also carries its HEAD). */
  const operation = (method: string, path: string): Locator =>
    page.locator('details.operation').filter({ has: page.locator(':scope > summary .method', { hasText: new RegExp(`^${method}\\b`) }) }).filter({ has: page.locator(':scope > summary code', { hasText: new RegExp(`^${path.replace(/[{}]/g, '\\$&')}$`) }) });
  const shown = (entry: Locator) => entry.locator('pre.docs-answer').textContent();

  async function openDocs(token: string): Promise<void> {
    await page.goto(`${server.url}/docs`);
    await expect.poll(() => page.locator('details.operation').count()).toBeGreaterThan(10);
    await page.getByLabel('Access token').fill(token);
    await page.getByLabel('Access token').press('Tab');
  }

  /** Stores a text/plain file in neuro/lab under `id`, without the page. */
  async function storeTextFile(id: string, filename: string, text: string): Promise<void> {
    const stored = await server.fixture.app.inject({
      method: 'PUT',
      url: `/v1/files/neuro/lab/${id}`,
      headers: { ...writer, 'content-type': 'multipart/form-data; boundary=b' },
      payload: `--b\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: text/plain\r\n\r\n${text}\r\n--b--\r\n`,
    });
    expect(stored.statusCode, stored.body).toBe(201);
  }

  async function fill(entry: Locator, values: Record<string, string>): Promise<void> {
    await entry.locator(':scope > summary').click();
    for (const [name, value] of Object.entries(values)) await entry.getByRole('textbox', { name }).fill(value);
  }

  beforeAll(async () => {
    server = await startServer(() => new ExtractiveGenerator(), { auth: AUTH });
    await createNeuroLab(server.fixture.app, writer.authorization);
    browser = await launchBrowser(server.url);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage();
    errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.addInitScript(() => {
      const seen: string[] = [];
      (globalThis as any).violations = seen;
      document.addEventListener('securitypolicyviolation', (event: { violatedDirective: string }) => seen.push(event.violatedDirective));
    });
  });
  afterEach(async () => {
    const violations: string[] = await page.evaluate(() => (globalThis as any).violations);
    await page.close();
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
    expect(browser.foreignRequests).toEqual([]);
  });

  it('uploads a picked file with POST: refused without the token (the refusal shown, nothing stored), stored with its name and bytes with it', async () => {
    await openDocs('');
    const upload = operation('post', '/v1/files/{org}/{project}');
    await fill(upload, { 'org (path)': 'neuro', 'project (path)': 'lab' });
    const picker = upload.getByLabel('file (file)');
    expect(await picker.getAttribute('type')).toBe('file');
    await picker.setInputFiles({ name: 'raw data.bin', mimeType: 'application/octet-stream', buffer: BYTES });
    await upload.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => shown(upload)).toMatch(/^HTTP 403 Forbidden\n/);
    expect((await inject('/v1/files/neuro/lab')).json()._total).toBe(0);

    await page.getByLabel('Access token').fill(WRITER);
    await page.getByLabel('Access token').press('Tab');
    await upload.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => shown(upload)).toMatch(/^HTTP 201 Created\n/);
    const created = JSON.parse((await shown(upload))!.replace(/^.*\n/, ''));
    const id = new URL(created._self).pathname.split('/').pop()!;
    const metadata = (await inject(`/v1/files/neuro/lab/${id}`, { ...writer, accept: 'application/json' })).json();
    expect([metadata._filename, metadata._mediaType, metadata._bytes]).toEqual(['raw data.bin', 'application/octet-stream', BYTES.length]);
    const content = await inject(`/v1/files/neuro/lab/${id}`);
    expect(content.statusCode).toBe(200);
    expect(content.rawPayload).toEqual(BYTES);
  });

  it('uploads with PUT under a chosen id, its form beside the path parameters', async () => {
    await openDocs(WRITER);
    const upload = operation('put', '/v1/files/{org}/{project}/{id}');
    await fill(upload, { 'org (path)': 'neuro', 'project (path)': 'lab', 'id (path)': 'notes' });
    await upload.getByLabel('file (file)').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('first notes\n') });
    await upload.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => shown(upload)).toMatch(/^HTTP 201 Created\n/);
    const content = await inject('/v1/files/neuro/lab/notes');
    expect([content.headers['content-type'], content.body]).toEqual(['text/plain', 'first notes\n']);
  });

  it('marks each GET that answers HEAD, one entry per GET; trying HEAD shows its status and headers and no body', async () => {
    const spec = (await inject('/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
    const heads = Object.keys(spec.paths).filter((path) => spec.paths[path]!.head);
    const entries = Object.values(spec.paths).flatMap((item) => Object.keys(item).filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method)));
    expect(heads.length).toBeGreaterThan(20);
    await storeTextFile('report', 'report.txt', 'five!');

    await openDocs(WRITER);
    expect(await page.locator('details.operation').count()).toBe(entries.length);
    const badged = await page.locator('details.operation > summary:has(.also-head) code').allTextContents();
    expect(badged.sort()).toEqual([...heads].sort());
    expect(await operation('post', '/v1/files/{org}/{project}').locator('.also-head').count()).toBe(0);

    const download = operation('get', '/v1/files/{org}/{project}/{id}');
    expect(await download.locator(':scope > summary .method').textContent()).toBe('get head');
    await fill(download, { 'org (path)': 'neuro', 'project (path)': 'lab', 'id (path)': 'report' });
    await download.getByRole('button', { name: 'HEAD (headers only)' }).click();
    await expect.poll(() => shown(download)).toMatch(/^HTTP 200 OK\n/);
    const lines = (await shown(download))!.split('\n');
    expect(lines).toEqual(expect.arrayContaining(['content-length: 5', 'content-type: text/plain', 'accept-ranges: bytes']));
    expect(lines.slice(1).every((line) => /^[a-z0-9-]+: /.test(line))).toBe(true);

    // The HEAD of a missing file answers its status too (no body to show).
    await download.getByRole('textbox', { name: 'id (path)' }).fill('missing');
    await download.getByRole('button', { name: 'HEAD (headers only)' }).click();
    await expect.poll(() => shown(download)).toMatch(/^HTTP 404 Not Found\n/);
    expect((await shown(download))!.split('\n').slice(1).every((line) => /^[a-z0-9-]+: /.test(line))).toBe(true);
  });

  it("asks a GET with several media types for the one chosen (a resource as N-Triples, a file's metadata), and sends declared headers (Range)", async () => {
    // The page had sent the browser's Accept alone, so only the default answer of each could be tried.
    const resource = await server.fixture.app.inject({
      method: 'PUT',
      url: '/v1/resources/neuro/lab/_/accept-cell',
      headers: { ...writer, 'content-type': 'application/json' },
      payload: JSON.stringify({ '@context': { '@vocab': 'https://example.org/' }, name: 'grid cell' }),
    });
    expect(resource.statusCode, resource.body).toBe(201);
    await storeTextFile('accept-notes', 'notes.txt', 'plain notes');
    await openDocs(WRITER);

    const read = operation('get', '/v1/resources/{org}/{project}/{schema}/{id}');
    await fill(read, { 'org (path)': 'neuro', 'project (path)': 'lab', 'schema (path)': '_', 'id (path)': 'accept-cell' });
    expect(await read.getByRole('combobox', { name: 'Accept (header)' }).locator('option').allTextContents()).toEqual(
      expect.arrayContaining(["the browser's default", 'application/ld+json', 'application/n-triples']),
    );
    await read.getByRole('combobox', { name: 'Accept (header)' }).selectOption('application/n-triples');
    await read.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => shown(read)).toMatch(/^HTTP 200 OK\n/);
    expect(await shown(read)).toContain('<https://example.org/name> "grid cell" .');

    const download = operation('get', '/v1/files/{org}/{project}/{id}');
    await fill(download, { 'org (path)': 'neuro', 'project (path)': 'lab', 'id (path)': 'accept-notes' });
    await download.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => shown(download)).toBe('HTTP 200 OK\nplain notes');
    await download.getByRole('combobox', { name: 'Accept (header)' }).selectOption('application/ld+json');
    await download.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => shown(download)).toContain('"_filename": "notes.txt"');
    // A header the operation declares as a parameter is sent as a header.
    await download.getByRole('combobox', { name: 'Accept (header)' }).selectOption('');
    await download.getByRole('textbox', { name: 'Range (header)', exact: true }).fill('bytes=0-4');
    await download.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => shown(download)).toBe('HTTP 206 Partial Content\nplain');

    // An operation with one media type offers no choice.
    expect(await operation('get', '/v1/orgs/{org}').getByRole('combobox', { name: 'Accept (header)' }).count()).toBe(0);
  });

  it('sends a list parameter as one value per item, a comma kept inside an item written \\, and a backslash as \\\\', async () => {
    await openDocs(WRITER);
    const entry = operation('get', '/retrieval/article_count');
    await fill(entry, { 'topics (query)': 'Brain\\, Behavior\\, and Immunity, place cells, back\\\\slash' });
    const sent = page.waitForRequest((request) => request.url().includes('/retrieval/article_count?'));
    await entry.getByRole('button', { name: 'Send' }).click();
    // Split at every comma, a journal's or a topic's own commas could not be sent.
    expect(new URL((await sent).url()).searchParams.getAll('topics')).toEqual(['Brain, Behavior, and Immunity', 'place cells', 'back\\slash']);
    expect(await entry.getByRole('row').filter({ has: page.getByRole('textbox', { name: 'topics (query)' }) }).textContent()).toContain('\\, for a comma');
  });
});
