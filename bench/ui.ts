/**
 * Web page benchmark: the bytes the page costs (gzip, as served) and the time
 * to first results on the demo corpus, in Debian's Chromium, against the real
 * server process (`.test-dist/main.js serve`, src/ compiled as `npm run build`
 * compiles it, before the first round when older than a source; the demo index
 * built on first start).
 *
 *   npm run bench:ui                 # 20 rounds
 *   UI_ROUNDS=5 npm run bench:ui
 *
 * Each round, interleaved: a cold load of a search URL (browser cache cleared),
 * a warm reload (files revalidated, 304), and Enter in the search field of a
 * loaded page; the time is until the first result card is in the DOM.
 */
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadUiAssets } from '../src/http/ui/assets.js';
import { machine, summarize, writeResults } from './lib/stats.js';
import { HAS_CHROMIUM, SKIP_REASON, launchBrowser } from '../test/ui/browser.js';
import { startServerProcess, writeAdminAuthFile } from '../test/reliability/server-process.js';
import { count } from './lib/settings.js';
import { compileServerProcess } from './lib/server-process.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const document: any, window: any, MutationObserver: any;

const ROUNDS = count('UI_ROUNDS', 20);
const QUERIES = ['place cells hippocampus', 'dopamine reward prediction', 'grid cells entorhinal cortex', 'sleep memory consolidation'];

/** The bytes of one file as the server sends it to a browser (gzip), read off the wire. */
function servedBytes(base: string, urlPath: string): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${urlPath}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => (response.statusCode === 200 ? resolve({ bytes, encoding: String(response.headers['content-encoding'] ?? 'identity') }) : reject(new Error(`${urlPath}: ${response.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

async function pageWeight(base: string) {
  const names = [...(await loadUiAssets()).keys()].sort();
  const files: { name: string; bytes: number; encoding: string }[] = [];
  for (const name of names) files.push({ name, ...(await servedBytes(base, name === 'index.html' ? '/ui/' : `/ui/${name}`)) });
  const total = (suffix: string, only?: (name: string) => boolean) => files.filter((f) => f.name.endsWith(suffix) && (!only || only(f.name))).reduce((s, f) => s + f.bytes, 0);
  return {
    files,
    js: total('.js', (n) => n !== 'js/docs.js'),
    css: total('.css'),
    html: total('index.html'),
    docsPage: total('docs.html') + total('js/docs.js') + total('js/api.js') + total('.css'),
  };
}

async function main(): Promise<void> {
  if (!HAS_CHROMIUM) {
    console.error(SKIP_REASON);
    process.exit(1);
  }
  await compileServerProcess();
  const work = await mkdtemp(path.join(os.tmpdir(), 'litserve-bench-ui-'));
  const server = await startServerProcess({ dataDir: work, authFile: await writeAdminAuthFile(work), extraFlags: ['--search-threads', String(os.availableParallelism())] });
  const browser = await launchBrowser(server.base);
  try {
    const weight = await pageWeight(server.base);
    const page = await browser.newPage();
    // The auth file grants anonymous nothing: the page's requests carry the administrator's token.
    await page.setExtraHTTPHeaders({ authorization: 'Bearer crash-admin' });
    await page.addInitScript(() => {
      const marks = window as unknown as { firstResultAt?: number };
      new MutationObserver((_: unknown, observer: { disconnect(): void }) => {
        if (document.querySelector('[data-testid="result"]')) {
          marks.firstResultAt = performance.now();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    const cdp = await browser.context.newCDPSession(page);
    const firstResult = () => page.waitForFunction(() => (window as unknown as { firstResultAt?: number }).firstResultAt).then((h) => h.jsonValue() as Promise<number>);
    /** When the page sent its /retrieval/ request and when the answer had arrived (ms from navigation start). */
    const searchTiming = () =>
      page.evaluate(() => {
        const entry = performance.getEntriesByType('resource').find((e: { name: string }) => e.name.includes('/retrieval/?')) as unknown as { startTime: number; responseEnd: number };
        return { sent: entry.startTime, received: entry.responseEnd };
      });
    const sent: number[] = [];
    const received: number[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    const enter: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const query = QUERIES[round % QUERIES.length]!;
      await cdp.send('Network.clearBrowserCache');
      await page.goto(`${server.base}/ui/?q=${encodeURIComponent(query)}`);
      cold.push(await firstResult());
      const timing = await searchTiming();
      sent.push(timing.sent);
      received.push(timing.received);
      await page.reload();
      warm.push(await firstResult());
      // Enter on a loaded page: from the key press to the first card.
      await page.goto(`${server.base}/ui/`);
      await page.waitForFunction(() => document.querySelector('#article-count')?.textContent !== '…');
      const box = page.getByRole('searchbox', { name: 'Search' });
      await box.fill(QUERIES[(round + 1) % QUERIES.length]!);
      const started = await page.evaluate(() => {
        (window as unknown as { firstResultAt?: number }).firstResultAt = undefined;
        new MutationObserver((_: unknown, observer: { disconnect(): void }) => {
          if (document.querySelector('[data-testid="result"]')) {
            (window as unknown as { firstResultAt?: number }).firstResultAt = performance.now();
            observer.disconnect();
          }
        }).observe(document.querySelector('#result-list'), { childList: true });
        return performance.now();
      });
      await box.press('Enter');
      enter.push((await firstResult()) - started);
    }
    if (browser.foreignRequests.length > 0) throw new Error(`the page asked other hosts: ${browser.foreignRequests.join(', ')}`);
    const results = { machine: machine(), loadAverage: os.loadavg().map((x) => Number(x.toFixed(1))), rounds: ROUNDS, weight, cold: summarize(cold), warm: summarize(warm), enter: summarize(enter), searchSent: summarize(sent), searchReceived: summarize(received) };
    const ms = (s: { p50: number; p99: number; mean: number }) => `${s.p50.toFixed(0)} | ${s.mean.toFixed(0)} | ${s.p99.toFixed(0)}`;
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    const markdown = [
      '# Web page: weight and time to first results',
      '',
      `\`npm run bench:ui\` (${ROUNDS} rounds), ${new Date().toISOString().slice(0, 10)}, machine: ${JSON.stringify(results.machine)}.`,
      'The real server process over the demo corpus (47 articles, the index `npm start` builds), Debian Chromium headless',
      '(playwright-core), loopback. Bytes are those on the wire (gzip, level 9, as the server sends them).',
      `Load average at the end of the run: ${results.loadAverage.join(', ')} (the 2 cores are shared with other work: times are`,
      'indicative; the split below shows where a load spends them).',
      '',
      '## Page weight (gzip)',
      '',
      '| part | bytes |',
      '| --- | --- |',
      `| JavaScript of the page (${weight.files.filter((f) => f.name.endsWith('.js') && f.name !== 'js/docs.js').length} modules) | ${weight.js} (${kb(weight.js)}) |`,
      `| CSS | ${weight.css} (${kb(weight.css)}) |`,
      `| HTML | ${weight.html} (${kb(weight.html)}) |`,
      `| /docs page (HTML, its 2 modules, CSS) | ${weight.docsPage} (${kb(weight.docsPage)}) |`,
      '',
      'Budget: under 150 KB of JavaScript gzipped (`test/ui/server.test.ts` keeps it).',
      '',
      '| file | bytes served | encoding |',
      '| --- | --- | --- |',
      ...weight.files.map((f) => `| ${f.name} | ${f.bytes} | ${f.encoding} |`),
      '',
      '## Time to first results (ms, until the first result card is in the DOM)',
      '',
      '| case | p50 | mean | p99 |',
      '| --- | --- | --- | --- |',
      `| cold load of \`/ui/?q=…\` (browser cache cleared; from navigation start) | ${ms(results.cold)} |`,
      `| warm reload (files revalidated with ETag, 304) | ${ms(results.warm)} |`,
      `| Enter in the search field of a loaded page (from the key press) | ${ms(results.enter)} |`,
      `| cold load: the page sends its /retrieval/ request | ${ms(results.searchSent)} |`,
      `| cold load: the /retrieval/ answer has arrived | ${ms(results.searchReceived)} |`,
      '',
      'A load fetches the HTML, the CSS and the modules, then /settings, /suggestions/article_types,',
      '/retrieval/article_count and /retrieval/ (retriever_k 100) in parallel where it can.',
      '',
    ].join('\n');
    await writeResults('ui', results, markdown);
    process.stdout.write(markdown);
  } finally {
    await browser.close();
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(work, { recursive: true, force: true });
  }
}

await main();
