/**
 * Query words are highlighted in any script and however the text spells its accents: Korean had never
 * been marked (the query was decomposed into jamo, the text was not), and one decomposed accent in a
 * paragraph had turned accent-blind matching off for the whole paragraph.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { HAS_CHROMIUM, SKIP_REASON, startServerAndBrowser } from './browser.js';

describe.skipIf(!HAS_CHROMIUM)(`highlighted query words in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let page: Page;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const started = await startServerAndBrowser();
    close = started.close;
    page = await started.browser.newPage();
    await page.goto(`${started.server.url}/ui/`);
  });
  afterAll(() => close?.());

  /**
   * The marked stretches of `text` for `query`, as the page's own module marks them. Given as source text:
   * vitest would rewrite an import() written in this file, which the page cannot run.
   */
  const marks = (query: string, text: string): Promise<{ marked: string[]; text: string }> =>
    page.evaluate(`(async () => {
      const { highlighted, queryWords } = await import('/ui/js/results.js');
      const holder = document.createElement('p');
      holder.append(highlighted(${JSON.stringify(text)}, queryWords(${JSON.stringify(query)})));
      return { marked: [...holder.querySelectorAll('mark')].map((m) => m.textContent), text: holder.textContent };
    })()`);

  it.each([
    ['Korean', '세포', '해마 세포 연구', ['세포']],
    ['a decomposed accent beside a precomposed one', 'cafe', 'cafe\u0301 and café', ['cafe\u0301', 'café']],
    ['an accented query on plain text', 'Café', 'the cafe opens', ['cafe']],
    ['Hangul and combining marks in one paragraph', '연구', 'e\u0301e\u0301 해마 연구', ['연구']],
    ['a prefix, as before', 'cell', 'Place cells and grid cells', ['cells', 'cells']],
  ])('%s', async (_, query, text, expected) => {
    const { marked, text: shown } = await marks(query, text);
    expect(marked).toEqual(expected);
    expect(shown).toBe(text);
  });
});
