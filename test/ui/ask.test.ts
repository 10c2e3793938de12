/**
 * Ask in Chromium: the answer streams in token by token, numbered citations
 * scroll to and highlight the cited card, Stop cancels the generation on the
 * server, and failures (429, 503, <bbs_error>, an error event, a dropped
 * connection) read as sentences, never as raw JSON.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { ModelUnavailableError, QueueFullError } from '../../src/llm/types.js';
import { HAS_CHROMIUM, SCREENSHOTS, SKIP_REASON, ScriptedGenerator, answerOf, eventually, launchBrowser, startServer, type Browser, type UiServer } from './browser.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const document: any, innerHeight: number, scrollTo: (x: number, y: number) => void, getComputedStyle: (element: unknown, pseudo: string) => { content: string };

/** A promise the test settles by hand, to hold a generator between tokens. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** Resolves when the signal fires, rejecting like a generator that was stopped. */
const untilAborted = (signal: AbortSignal | undefined) =>
  new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));

describe.skipIf(!HAS_CHROMIUM)(`Ask in Chromium (${HAS_CHROMIUM ? '/usr/bin/chromium' : SKIP_REASON})`, () => {
  let server: UiServer;
  let browser: Browser;
  let page: Page;
  const generator = new ScriptedGenerator(new ExtractiveGenerator());
  let modelMissing = false;

  const message = () => page.locator('#message');
  const ask = async (question: string) => {
    await page.getByRole('searchbox', { name: 'Search' }).fill(question);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
  };

  beforeAll(async () => {
    server = await startServer(() => {
      if (modelMissing) throw new ModelUnavailableError('the model file /models/missing.gguf cannot be read; fix --llm-model');
      return generator;
    });
    browser = await launchBrowser(server.url);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    generator.script = null;
    modelMissing = false;
    page = await browser.newPage();
    await page.goto(`${server.url}/ui/`);
  });
  afterEach(async () => {
    await page.close();
  });

  it('streams the answer as it is generated, then numbers its citations; a citation scrolls to and highlights its card', async () => {
    const halfway = gate();
    generator.script = async (_question, contexts, { onToken }) => {
      onToken?.('Place cells fire ');
      await halfway.wait;
      onToken?.('at specific locations [1] and form maps [2].');
      return answerOf('Place cells fire at specific locations [1] and form maps [2].', [contexts[0]!.id, contexts[3]!.id]);
    };
    await ask('What do place cells encode?');
    const answer = page.getByTestId('answer');
    await expect.poll(() => answer.textContent()).toBe('Place cells fire ');
    expect(await answer.getAttribute('aria-live')).toBe('polite');
    expect(await answer.getAttribute('aria-busy')).toBe('true');
    expect(await page.getByTestId('citation').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Stop', exact: true }).isVisible()).toBe(true);
    halfway.open();

    await expect.poll(() => page.getByTestId('citation').count()).toBe(2);
    expect(await answer.textContent()).toBe('Place cells fire at specific locations [1] and form maps [2].');
    expect(await page.getByRole('button', { name: 'Stop', exact: true }).isVisible()).toBe(false);
    const expected = await server.fixture.app.inject({ method: 'POST', url: '/qa/generative', payload: { query: 'What do place cells encode?' } });
    const metadata: { article_title: string; paragraph: string }[] = expected.json().metadata;
    expect(await page.getByTestId('citation').allTextContents()).toEqual(metadata.map((m, i) => `[${i + 1}] ${m.article_title}`));
    const cards = page.getByTestId('result');
    expect(await cards.count()).toBe(2);
    expect(await cards.nth(1).locator('.paragraph').textContent()).toContain(metadata[1]!.paragraph);

    await page.setViewportSize({ width: 1280, height: 500 });
    await page.getByTestId('citation').nth(1).click();
    const cited = cards.nth(1);
    await expect.poll(() => cited.getAttribute('class')).toContain('highlight');
    await expect.poll(() => cited.evaluate((card) => card.getBoundingClientRect().top >= 0 && card.getBoundingClientRect().top < innerHeight)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cited-2');
    expect(await cards.nth(0).getAttribute('class')).not.toContain('highlight');

    // The README's picture: the extractive generator's real answer, streamed the same way.
    generator.script = null;
    await page.setViewportSize({ width: 1280, height: 900 });
    await ask('What do place cells encode?');
    await expect.poll(() => page.getByTestId('answer').getAttribute('aria-busy')).toBe('false');
    expect(await page.getByTestId('citation').count()).toBeGreaterThan(0);
    await page.evaluate(() => scrollTo(0, 0));
    const shot = await page.screenshot();
    expect(shot.length).toBeGreaterThan(10_000);
    if (process.env.UPDATE_SCREENSHOTS === '1') await writeFile(path.join(SCREENSHOTS, 'answer.png'), shot);
  });

  it('says that the answer is awaited until its first words arrive', async () => {
    const firstWords = gate();
    generator.script = async (_question, contexts, { onToken }) => {
      await firstWords.wait;
      onToken?.('Grid cells ');
      return answerOf('Grid cells tile space.', [contexts[0]!.id]);
    };
    const placeholder = () => page.getByTestId('answer').evaluate((element) => getComputedStyle(element, '::before').content);
    await ask('What do grid cells do?');
    await expect.poll(placeholder).toBe('"Waiting for the answer…"');
    firstWords.open();
    await expect.poll(() => page.getByTestId('answer').textContent()).toBe('Grid cells tile space.');
    expect(await placeholder()).toBe('none');
  });

  it('a right-to-left question and its answer read right to left, in the field as in the answer', async () => {
    generator.script = async (_question, contexts, { onToken }) => {
      onToken?.('تشفر خلايا المكان ');
      return answerOf('تشفر خلايا المكان موقع الحيوان.', [contexts[0]!.id]);
    };
    const rightToLeft = (element: unknown) => (element as { matches(selector: string): boolean }).matches(':dir(rtl)');
    // Its first letters are Arabic; the English words find the articles.
    await ask('ما الذي تشفره place cells؟');
    expect(await page.getByRole('searchbox', { name: 'Search' }).evaluate(rightToLeft)).toBe(true);
    await expect.poll(() => page.getByTestId('citation').count()).toBe(1);
    expect(await page.getByTestId('answer').evaluate(rightToLeft)).toBe(true);
    for (const name of ['Authors', 'Journals', 'Topics', 'Regions']) {
      const field = page.getByLabel(name, { exact: true });
      await field.fill('الحصين');
      expect({ name, rtl: await field.evaluate(rightToLeft) }).toEqual({ name, rtl: true });
    }
  });

  it('Stop cancels the stream and the generation on the server, and keeps what arrived', async () => {
    let stopped = false;
    generator.script = async (_question, _contexts, { onToken, signal }) => {
      onToken?.('The first words ');
      try {
        return await untilAborted(signal);
      } finally {
        stopped = true;
      }
    };
    await ask('What do grid cells do?');
    await expect.poll(() => page.getByTestId('answer').textContent()).toBe('The first words ');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => message().textContent()).toContain('Stopped');
    await eventually(() => stopped);
    expect(await page.getByTestId('answer').textContent()).toBe('The first words ');
    expect(await page.getByRole('button', { name: 'Stop', exact: true }).isVisible()).toBe(false);
  });

  it('Stop before the first words says no answer arrived, over no empty answer panel', async () => {
    let started = false;
    generator.script = async (_question, _contexts, { signal }) => {
      started = true;
      return untilAborted(signal);
    };
    await ask('What do grid cells do?');
    await eventually(() => started);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => message().textContent()).toBe('Stopped before any answer arrived.');
    expect(await page.getByTestId('answer').isVisible()).toBe(false);
    await expect.poll(() => page.getByRole('button', { name: 'Stop', exact: true }).isVisible()).toBe(false);
  });

  it('a question asked from the listing is answered in the search view, its address without the listing\'s mode and page', async () => {
    await page.goto(`${server.url}/ui/?mode=list&page=2&sort=date`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    await ask('What do grid cells do?');
    await expect.poll(() => page.getByTestId('citation').count()).toBeGreaterThan(0);
    expect(new URL(page.url()).search).toBe(`?ask=${encodeURIComponent('What do grid cells do?').replace(/%20/g, '+')}`);
    expect(await page.getByRole('button', { name: 'List articles' }).getAttribute('aria-pressed')).toBe('false');
    expect(await page.locator('#listing-controls').isVisible()).toBe(false);
    expect(await page.locator('#pager').isVisible()).toBe(false);
    // A hand-made link holding both reads as the question's view too.
    await page.goto(`${server.url}/ui/?ask=grid+cells&mode=list&page=3`);
    await expect.poll(() => page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('grid cells');
    expect(await page.getByRole('button', { name: 'Search results' }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#listing-controls').isVisible()).toBe(false);
  });

  it('a search started while an answer streams stops the answer, whose citations never replace the search results', async () => {
    let stopped = false;
    generator.script = async (_question, _contexts, { onToken, signal }) => {
      onToken?.('An answer that will not finish ');
      try {
        return await untilAborted(signal);
      } finally {
        stopped = true;
      }
    };
    await ask('What do place cells encode?');
    await expect.poll(() => page.getByTestId('answer').textContent()).toBe('An answer that will not finish ');
    await page.getByRole('searchbox', { name: 'Search' }).fill('dopamine');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    const hits: { article_id: string }[] = (await server.fixture.app.inject({ url: '/retrieval/?query=dopamine&retriever_k=100' })).json();
    const searchIds = [...new Set(hits.map((hit) => hit.article_id))];
    const shownIds = () => page.getByTestId('result').evaluateAll((cards) => cards.map((card) => (card as any).dataset.articleId));
    await expect.poll(shownIds).toEqual(searchIds);
    // The generation is stopped on the server, and nothing of the answer comes back.
    await eventually(() => stopped);
    expect(await page.getByRole('button', { name: 'Stop', exact: true }).isVisible()).toBe(false);
    expect(await page.getByTestId('answer').isVisible()).toBe(false);
    expect(await message().isVisible()).toBe(false);
    expect(await shownIds()).toEqual(searchIds);
  });

  it('Ask pressed again while answering drops the first answer silently and streams the second with its Stop button', async () => {
    let firstStopped = false;
    const second = gate();
    let calls = 0;
    generator.script = async (_question, contexts, { onToken, signal }) => {
      if (++calls === 1) {
        onToken?.('First ');
        try {
          return await untilAborted(signal);
        } finally {
          firstStopped = true;
        }
      }
      onToken?.('Second ');
      await second.wait;
      return answerOf('Second answer [1].', [contexts[0]!.id]);
    };
    await ask('What do place cells encode?');
    await expect.poll(() => page.getByTestId('answer').textContent()).toBe('First ');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await eventually(() => firstStopped);
    await expect.poll(() => page.getByTestId('answer').textContent()).toBe('Second ');
    expect(await page.getByRole('button', { name: 'Stop', exact: true }).isVisible()).toBe(true);
    expect(await page.getByTestId('answer').getAttribute('aria-busy')).toBe('true');
    expect(await message().isVisible()).toBe(false);
    second.open();
    await expect.poll(() => page.getByTestId('citation').count()).toBe(1);
    expect(await page.getByTestId('answer').textContent()).toBe('Second answer [1].');
    expect(await message().isVisible()).toBe(false);
  });

  it('on a narrow screen the Stop button is in view while an answer streams', async () => {
    generator.script = async (_question, _contexts, { onToken, signal }) => {
      onToken?.('Streaming ');
      return untilAborted(signal);
    };
    await page.setViewportSize({ width: 360, height: 740 });
    await ask('What do place cells encode?');
    await expect.poll(() => page.getByTestId('answer').textContent()).toBe('Streaming ');
    const stop = page.getByRole('button', { name: 'Stop', exact: true });
    const box = (await stop.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await stop.click();
    await expect.poll(() => message().textContent()).toContain('Stopped');
  });

  it('a question typed, then filters chosen, then Ask: the question survives the filter change and is asked with the filters', async () => {
    await page.goto(`${server.url}/ui/?q=cells`);
    await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
    const searchBox = page.getByRole('searchbox', { name: 'Search' });
    await searchBox.fill('What do place cells encode?');
    const filtered = page.waitForRequest((request) => request.url().includes('/retrieval/article_count?article_types=review-article'));
    await page.getByRole('checkbox', { name: /^review-article/ }).check();
    await filtered;
    await expect.poll(() => page.getByTestId('article-count').textContent()).not.toBe('…');
    expect(await searchBox.inputValue()).toBe('What do place cells encode?');
    const asked = page.waitForRequest((request) => request.url().includes('/qa/streamed_generative'));
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const request = await asked;
    expect(new URL(request.url()).searchParams.getAll('article_types')).toEqual(['review-article']);
    expect(request.postDataJSON()).toEqual({ query: 'What do place cells encode?' });
    // The back button still brings the field back to the query of that view.
    await page.goBack();
    await expect.poll(() => searchBox.inputValue()).toBe('cells');
  });

  it('a date typed just before Ask is asked with, and its delay ending does not drop the answer', async () => {
    const searchBox = page.getByRole('searchbox', { name: 'Search' });
    await searchBox.fill('What do place cells encode?');
    const asked = page.waitForRequest((request) => request.url().includes('/qa/streamed_generative'));
    await page.getByLabel('From', { exact: true }).fill('2015-01-01');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    expect(new URL((await asked).url()).searchParams.get('date_from')).toBe('2015-01-01');
    expect(new URL(page.url()).searchParams.get('date_from')).toBe('2015-01-01');
    await expect.poll(() => page.getByTestId('citation').count()).toBeGreaterThan(0);
    // Past the delay after which a typed date applies: the answer and its citations stay.
    await page.waitForTimeout(1000);
    expect(await page.getByTestId('answer').isVisible()).toBe(true);
    expect(await page.getByTestId('citation').count()).toBeGreaterThan(0);
  });

  it('"Skip to results" after an answer moves the focus to it and keeps the answer and its citations', async () => {
    await ask('What do place cells encode?');
    await expect.poll(() => page.getByTestId('citation').count()).toBeGreaterThan(0);
    const citations = await page.getByTestId('citation').allTextContents();
    const answer = await page.getByTestId('answer').textContent();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.getByRole('link', { name: 'Skip to results' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('results');
    await page.waitForTimeout(300);
    expect(await page.getByTestId('answer').isVisible()).toBe(true);
    expect(await page.getByTestId('answer').textContent()).toBe(answer);
    expect(await page.getByTestId('citation').allTextContents()).toEqual(citations);
    expect(await page.getByTestId('result').count()).toBe(citations.length);
    expect(requests).toEqual([]);
  });

  describe('the asked question in the address', () => {
    const searchBox = () => page.getByRole('searchbox', { name: 'Search' });
    const hint = () => page.locator('#ask-again');
    const address = () => Object.fromEntries(new URL(page.url()).searchParams);
    const historyLength = () => page.evaluate(() => (globalThis as any).history.length);
    /** Counts the questions the model is given from here on. */
    const countAnswers = () => {
      const asked = { count: 0 };
      generator.script = async (_question, contexts) => {
        asked.count++;
        return answerOf('Place cells encode locations [1].', [contexts[0]!.id]);
      };
      return asked;
    };
    /** The page's own requests for answers from here on. */
    const answerRequests = () => {
      const sent: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/qa/')) sent.push(request.url());
      });
      return sent;
    };
    const question = 'What do place cells encode?';

    it('goes into the address; a reload or a shared link brings it back into the field, ready to ask, without answering it', async () => {
      const asked = countAnswers();
      await page.goto(`${server.url}/ui/?q=cells&article_types=research-article`);
      await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
      expect(await hint().isVisible()).toBe(false);
      await ask(question);
      await expect.poll(() => page.getByTestId('citation').count()).toBe(1);
      // In place of the query, which the answer replaces on screen; the filters it was asked with stay.
      expect(address()).toEqual({ ask: question, article_types: 'research-article' });
      expect(await hint().isVisible()).toBe(false);

      const sent = answerRequests();
      await page.reload();
      await expect.poll(() => page.getByTestId('article-count').textContent()).not.toBe('…');
      expect(await searchBox().inputValue()).toBe(question);
      expect(await hint().isVisible()).toBe(true);
      expect(await page.getByTestId('answer').isVisible()).toBe(false);
      expect(await page.getByRole('checkbox', { name: /^research-article/ }).isChecked()).toBe(true);

      const shared = await browser.newPage();
      await shared.goto(page.url());
      await expect.poll(() => shared.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe(question);
      expect(await shared.locator('#ask-again').isVisible()).toBe(true);
      await shared.close();

      await page.waitForTimeout(500);
      expect(sent).toEqual([]);
      expect(asked.count).toBe(1);
      // Ask answers it, as asked before.
      await page.getByRole('button', { name: 'Ask', exact: true }).click();
      await expect.poll(() => page.getByTestId('citation').count()).toBe(1);
      expect(asked.count).toBe(2);
      expect(await hint().isVisible()).toBe(false);
      expect(address()).toEqual({ ask: question, article_types: 'research-article' });
    });

    it('a hand-made link with a query and a question shows the question alone, as an answer\'s view does', async () => {
      const sent = answerRequests();
      const searched: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/retrieval/') searched.push(request.url());
      });
      await page.goto(`${server.url}/ui/?q=cells&ask=${encodeURIComponent(question)}`);
      await expect.poll(() => page.getByTestId('article-count').textContent()).not.toBe('…');
      expect(await searchBox().inputValue()).toBe(question);
      expect(await hint().isVisible()).toBe(true);
      // The field's question is not what results below it would answer: no query's results are shown.
      await page.waitForTimeout(300);
      expect(searched).toEqual([]);
      expect(await page.getByTestId('result').count()).toBe(0);
      expect(address()).toEqual({ ask: question });
      expect(sent).toEqual([]);
    });

    it('each Ask is one history entry: Back brings the view before it, Forward the question again, unanswered', async () => {
      const asked = countAnswers();
      await page.goto(`${server.url}/ui/?q=cells`);
      await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
      const before = await historyLength();
      await ask(question);
      await expect.poll(() => page.getByTestId('citation').count()).toBe(1);
      await ask('What do grid cells do?');
      await expect.poll(() => address()).toEqual({ ask: 'What do grid cells do?' });
      await expect.poll(() => page.getByTestId('answer').getAttribute('aria-busy')).toBe('false');
      expect(await historyLength()).toBe(before + 2);
      expect(asked.count).toBe(2);

      const sent = answerRequests();
      await page.goBack();
      await expect.poll(() => searchBox().inputValue()).toBe(question);
      expect(await hint().isVisible()).toBe(true);
      expect(await page.getByTestId('answer').isVisible()).toBe(false);
      await page.goBack();
      await expect.poll(() => searchBox().inputValue()).toBe('cells');
      expect(await hint().isVisible()).toBe(false);
      await expect.poll(() => page.getByTestId('result').count()).toBeGreaterThan(0);
      await page.goForward();
      await expect.poll(() => searchBox().inputValue()).toBe(question);
      expect(await hint().isVisible()).toBe(true);
      await page.waitForTimeout(500);
      expect(sent).toEqual([]);
      expect(asked.count).toBe(2);
    });

    it('clearing the field takes the question out of the address, in the same history entry; a search replaces it', async () => {
      await page.goto(`${server.url}/ui/?q=cells`);
      await ask(question);
      await expect.poll(() => page.getByTestId('citation').count()).toBeGreaterThan(0);
      await page.reload();
      await expect.poll(() => hint().isVisible()).toBe(true);
      const before = await historyLength();
      // An edit makes it another question: the hint goes, the address keeps the asked one until the field is empty.
      await searchBox().press('End');
      await searchBox().press('Backspace');
      expect(await hint().isVisible()).toBe(false);
      expect(address()).toEqual({ ask: question });
      // Nor does a view shown meanwhile bring the hint back for a question the field no longer holds.
      await page.getByRole('checkbox', { name: /^review-article/ }).check();
      await expect.poll(() => address()).toEqual({ ask: question, article_types: 'review-article' });
      await expect.poll(() => page.getByTestId('article-count').textContent()).toBe(String((await server.fixture.app.inject({ url: '/retrieval/article_count?article_types=review-article' })).json().article_count));
      expect(await hint().isVisible()).toBe(false);
      const withFilter = await historyLength();
      expect(withFilter).toBe(before + 1);
      await searchBox().fill('');
      expect(address()).toEqual({ article_types: 'review-article' });
      expect(await historyLength()).toBe(withFilter);
      await page.reload();
      await expect.poll(() => page.getByTestId('article-count').textContent()).not.toBe('…');
      expect(await searchBox().inputValue()).toBe('');

      await ask(question);
      await expect.poll(() => address()).toEqual({ ask: question, article_types: 'review-article' });
      await searchBox().fill('dopamine');
      await searchBox().press('Enter');
      await expect.poll(() => address()).toEqual({ q: 'dopamine', article_types: 'review-article' });
      expect(await hint().isVisible()).toBe(false);
    });

    it('a question too long for the address is asked all the same, and left out of it', async () => {
      await page.goto(`${server.url}/ui/?q=cells`);
      // Each ? takes 3 characters in an address: over its 12,000.
      const long = `${question}${'?'.repeat(4100)}`;
      const asked = page.waitForRequest((request) => request.url().includes('/qa/streamed_generative'));
      await ask(long);
      expect((await asked).postDataJSON()).toEqual({ query: long });
      await expect.poll(() => page.getByTestId('citation').count()).toBeGreaterThan(0);
      expect(address()).toEqual({});
      expect(await message().isVisible()).toBe(false);
    });

    it('the count of the answer\'s view failing after the answer is shown is said, and the citations stay', async () => {
      await page.goto(`${server.url}/ui/`);
      await expect.poll(() => page.getByTestId('article-count').textContent()).not.toBe('…');
      let fail = () => {};
      await page.route('**/retrieval/article_count**', (route) => {
        fail = () => void route.fulfill({ status: 503, body: '' });
      });
      await ask(question);
      await expect.poll(() => page.getByTestId('citation').count()).toBeGreaterThan(0);
      const cited = await page.getByTestId('result').count();
      expect(cited).toBeGreaterThan(0);
      fail();
      await expect.poll(() => message().textContent()).toMatch(/^The server is overloaded or restarting\./);
      expect(await page.getByTestId('result').count()).toBe(cited);
      expect(await page.getByTestId('answer').isVisible()).toBe(true);
    });
  });

  it('shows a full queue (429) with when to retry', async () => {
    generator.script = async () => {
      throw new QueueFullError(7, 8, 'questions are waiting for an answer');
    };
    await ask('What do place cells encode?');
    await expect.poll(() => message().textContent()).toContain('Try again in 7 seconds');
    expect(await message().textContent()).not.toMatch(/[{}"]/);
    expect(await page.getByTestId('answer').isVisible()).toBe(false);
  });

  it('shows a model that failed to load (503) with the setting to fix', async () => {
    modelMissing = true;
    await ask('What do place cells encode?');
    await expect.poll(() => message().textContent()).toBe('Answers are unavailable: the model file /models/missing.gguf cannot be read; fix --llm-model');
  });

  it('shows a <bbs_error> answer as "not answered", without citations', async () => {
    generator.script = async (_question, _contexts, { onToken }) => {
      onToken?.('None of the retrieved paragraphs say what place cells eat.');
      return answerOf('None of the retrieved paragraphs say what place cells eat.', [], false);
    };
    await ask('What do place cells eat?');
    await expect.poll(() => message().textContent()).toContain('do not answer this question');
    expect(await page.getByTestId('answer').textContent()).toBe('None of the retrieved paragraphs say what place cells eat.');
    expect(await page.getByTestId('citation').count()).toBe(0);
    expect(await page.getByTestId('answer').textContent()).not.toContain('<bbs_error>');
    // The model's text is headed as why there is no answer (it had stood under "Answer" beside a notice saying there
    // was none), and no empty list of citations is exposed.
    expect(await page.getByRole('region', { name: 'Why there is no answer' }).count()).toBe(1);
    expect(await page.getByRole('list', { name: 'Citations' }).count()).toBe(0);
    expect(await page.locator('#message [role="status"]').textContent()).toContain('do not answer this question');
  });

  it('an answer is headed "Answer" again after a question that had none', async () => {
    generator.script = async () => answerOf('Nothing here says.', [], false);
    await ask('What do place cells eat?');
    await expect.poll(() => page.getByRole('region', { name: 'Why there is no answer' }).count()).toBe(1);
    generator.script = null;
    await ask('What do place cells encode?');
    await expect.poll(() => page.getByTestId('citation').count()).toBeGreaterThan(0);
    expect(await page.getByRole('region', { name: 'Answer' }).count()).toBe(1);
    expect(await page.getByRole('list', { name: 'Citations' }).count()).toBe(1);
  });

  it('says a question of punctuation alone in the words of a question, as a notice', async () => {
    await ask('?!');
    await expect.poll(() => message().textContent()).toBe('No article can be found: the question has no searchable word (only stopwords or punctuation).');
    expect(await page.locator('#message [role="status"] > p').count()).toBe(1);
  });

  it('shows an error event in the middle of the stream', async () => {
    generator.script = async (_question, _contexts, { onToken }) => {
      onToken?.('Half an ');
      throw new QueueFullError(3, 8, 'questions are waiting for an answer');
    };
    await ask('What do place cells encode?');
    await expect.poll(() => message().textContent()).toMatch(/^The answer failed part-way: too many questions are waiting for an answer/);
    expect(await page.getByTestId('answer').textContent()).toBe('Half an ');
  });

  it('shows a connection dropped by the server', async () => {
    const holding = gate();
    generator.script = async (_question, _contexts, { onToken, signal }) => {
      onToken?.('Before the cut ');
      holding.open();
      return untilAborted(signal);
    };
    await ask('What do place cells encode?');
    await holding.wait;
    await expect.poll(() => page.getByTestId('answer').textContent()).toBe('Before the cut ');
    server.fixture.app.server.closeAllConnections();
    await expect.poll(() => message().textContent()).toBe('The connection to the server was lost before the answer was complete.');
  });

  it('shows a server that cannot be reached', async () => {
    await page.route('**/qa/streamed_generative', (route) => route.abort('connectionrefused'));
    await ask('What do place cells encode?');
    await expect.poll(() => message().textContent()).toContain('The server could not be reached');
    expect(browser.foreignRequests).toEqual([]);
  });
});
