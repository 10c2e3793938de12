/** Helpers for reader tests: fixture files in a temporary directory, and event collection. */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { ArticleInput } from '../../src/corpus/model.js';
import { readArticles } from '../../src/corpus/readers/index.js';
import type { InputFormat, ReadEvent, ReadOptions } from '../../src/corpus/readers/types.js';

/** The directories fixtureDir made in this test file. */
const madeDirectories: string[] = [];
// Registered as the test file imports this module: an afterAll called inside a test had never run, and
// every run had left its directories behind.
afterAll(() => Promise.all(madeDirectories.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))));

/** A fresh temporary directory, removed after the test file's tests. */
export async function fixtureDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'readers-test-'));
  madeDirectories.push(dir);
  return dir;
}

export async function writeFixture(dir: string, name: string, content: string | Buffer): Promise<string> {
  const file = path.join(dir, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

export async function readAll(file: string, format: InputFormat, options?: ReadOptions): Promise<ReadEvent[]> {
  const events: ReadEvent[] = [];
  for await (const event of readArticles(file, format, options)) events.push(event);
  return events;
}

export function articlesOf(events: ReadEvent[]): ArticleInput[] {
  return events.flatMap((event) => (event.kind === 'article' ? [event.article] : []));
}

export function errorsOf(events: ReadEvent[]): Extract<ReadEvent, { kind: 'error' }>[] {
  return events.filter((event): event is Extract<ReadEvent, { kind: 'error' }> => event.kind === 'error');
}

/** The single article of a one-article file; fails the test with the errors otherwise. */
export async function readOne(file: string, format: InputFormat): Promise<ArticleInput> {
  const events = await readAll(file, format);
  const articles = articlesOf(events);
  if (articles.length !== 1 || events.length !== 1) {
    throw new Error(`expected exactly one article, got ${JSON.stringify(events, null, 2)}`);
  }
  return articles[0];
}
