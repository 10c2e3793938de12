/**
 * Browser tests' fixtures: Debian's Chromium driven by playwright-core (never a
 * downloaded browser), a real HTTP server over the demo corpus, a scriptable
 * answer generator, and a guard that fails a test when the page asks any host
 * but the server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Locator, type Page, type Route } from 'playwright-core';
import { expect } from 'vitest';
import { parseArticleLine } from '../../src/corpus/readers/articles-jsonl.js';
import type { ArticleInput } from '../../src/corpus/model.js';
import { formatRawAnswer } from '../../src/llm/answer.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import type { Context, GenerateOptions, GenerationResult, Generator } from '../../src/llm/types.js';
import { fixtureApp, type Fixture, type FixtureOptions } from '../http/app-fixture.js';

// Browser globals: used only in functions that Playwright runs inside the page.
declare const document: any, NodeFilter: any;

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const SKIP_REASON = `browser tests skipped: ${CHROMIUM} not found (install Debian's chromium: apt-get install -y chromium)`;
if (!HAS_CHROMIUM) console.warn(SKIP_REASON);

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The shipped demo corpus (47 articles), the one `npm start` serves. */
export function demoArticles(): ArticleInput[] {
  return readFileSync(path.join(ROOT, 'data/demo/articles.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const parsed = parseArticleLine(line);
      if ('error' in parsed) throw new Error(parsed.error);
      return parsed.article;
    });
}

export type Script = (question: string, contexts: Context[], options: GenerateOptions) => Promise<GenerationResult>;

/** A generator whose behaviour each test sets (`script`); `null` answers extractively. */
export class ScriptedGenerator implements Generator {
  readonly kind = 'extractive' as const;
  readonly description = 'scripted (tests)';
  script: Script | null = null;

  constructor(private readonly fallback: Generator) {}

  generate(question: string, contexts: Context[], options: GenerateOptions = {}): Promise<GenerationResult> {
    return this.script ? this.script(question, contexts, options) : this.fallback.generate(question, contexts, options);
  }

  async close(): Promise<void> {}
}

/** A result citing `sources`, in the generator contract's shape. */
export function answerOf(answer: string, sources: number[], hasAnswer = true): GenerationResult {
  return { hasAnswer, answer, sources, raw: formatRawAnswer({ hasAnswer, answer, sources }) };
}

export interface UiServer {
  url: string;
  fixture: Fixture;
  close(): Promise<void>;
}

/** The app over the demo corpus (or the given articles) on a real port (a browser needs TCP, not inject). */
export async function startServer(generator: () => Generator, options: FixtureOptions = {}, articles: ArticleInput[] = demoArticles()): Promise<UiServer> {
  const fixture = await fixtureApp(articles, { generator }, options);
  const address = await fixture.app.listen({ host: '127.0.0.1', port: 0 });
  return { url: address, fixture, close: () => fixture.close() };
}

export interface Browser {
  context: BrowserContext;
  /** Every URL the pages asked for that is not on the server's host. */
  foreignRequests: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Chromium with a fresh profile and no background traffic; requests to any other host are recorded and refused.
 * `javaScriptEnabled: false` is a browser that runs no script at all.
 */
export async function launchBrowser(serverUrl: string, downloads?: string, { javaScriptEnabled = true } = {}): Promise<Browser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'litserve-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    javaScriptEnabled,
    ...(downloads && { downloadsPath: downloads }),
  });
  const own = new URL(serverUrl).host;
  const foreignRequests: string[] = [];
  await context.route(
    (url) => url.host !== own && url.protocol !== 'data:' && url.protocol !== 'blob:',
    (route) => {
      foreignRequests.push(route.request().url());
      return route.abort('blockedbyclient');
    },
  );
  return {
    context,
    foreignRequests,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A server over `articles` answering with the extractive generator, and a browser on it: what most page tests share. */
export async function startServerAndBrowser(articles: ArticleInput[] = demoArticles()): Promise<{ server: UiServer; browser: Browser; close(): Promise<void> }> {
  const extractive = new ExtractiveGenerator();
  const server = await startServer(() => extractive, {}, articles);
  const browser = await launchBrowser(server.url);
  return { server, browser, close: async () => (await browser.close(), await server.close()) };
}

/** Holds the first request `page` makes to `pattern` (others go through); resolves with the means to let it go. */
export function holdFirst(page: Page, pattern: string, which: (route: Route) => boolean = () => true): Promise<() => void> {
  let held = false;
  return new Promise((resolve) => {
    void page.route(pattern, (route) => {
      if (held || !which(route)) return route.continue();
      held = true;
      // The page has aborted it by then, if it did: there is nothing left to answer.
      resolve(() => void route.continue().catch(() => undefined));
    });
  });
}

/** Long enough for a released answer to reach the page and be written, were it going to be. */
export const settle = (page: Page) => page.waitForTimeout(500);

/** Resolves when `predicate` holds, polling; for server-side effects a browser cannot see. */
export async function eventually(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const SCREENSHOTS = path.join(ROOT, 'docs/images');

/**
 * True when `text`, found in a text node of `element`, is laid out left to right (its first character left
 * of its last); null when no text node holds it. How the bidi tests see what isolation did to a string.
 */
export function readsLeftToRight(element: Locator, text: string): Promise<boolean | null> {
  return element.evaluate((root, text) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.data.indexOf(text);
      if (at < 0) continue;
      const leftOf = (index: number) => {
        const range = document.createRange();
        range.setStart(node, index);
        range.setEnd(node, index + 1);
        return range.getBoundingClientRect().left;
      };
      return leftOf(at) < leftOf(at + text.length - 1);
    }
    return null;
  }, text);
}

/** Creates organization neuro and project neuro/lab, the page tests' archive target, as the caller `authorization` names. */
export async function createNeuroLab(app: FastifyInstance, authorization: string): Promise<void> {
  for (const url of ['/v1/orgs/neuro', '/v1/projects/neuro/lab']) {
    const created = await app.inject({ method: 'PUT', url, headers: { authorization, 'content-type': 'application/json' }, payload: '{}' });
    expect(created.statusCode, created.body).toBe(201);
  }
}
