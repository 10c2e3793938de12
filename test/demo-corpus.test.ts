/**
 * Checks the shipped demo corpus (data/demo/articles.jsonl), the corpus that
 * `npm start` ingests on a fresh machine, so that every feature of the server
 * (search, filters, facets, QA) has something to show.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { ISSN_PATTERN, isValidDate } from '../src/corpus/model.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FILE = path.join(ROOT, 'data', 'demo', 'articles.jsonl');

interface DemoArticle {
  article_id: string;
  title: string;
  authors: string[];
  article_doi: string;
  pubmed_id: null;
  date: string;
  article_type: string;
  journal_issn: string;
  journal_name: string;
  cited_by: number;
  impact_factor: number | null;
  abstract: string;
  paragraphs: { section: string; text: string }[];
}

const FIELDS = [
  'article_id',
  'title',
  'authors',
  'article_doi',
  'pubmed_id',
  'date',
  'article_type',
  'journal_issn',
  'journal_name',
  'cited_by',
  'impact_factor',
  'abstract',
  'paragraphs',
].sort();

const ALLOWED_TYPES = new Set([
  'research-article',
  'review-article',
  'brief-report',
  'case-report',
  'editorial',
  'methods-article',
  'meta-analysis',
  'thesis',
]);

const raw = readFileSync(FILE);
const content = raw.toString('utf8');
const lines = content.split('\n').filter((line, i, all) => !(i === all.length - 1 && line === ''));
const articles: DemoArticle[] = lines.map((line) => JSON.parse(line) as DemoArticle);

const abstractParagraphs = (a: DemoArticle): string[] => a.abstract.split('\n\n');
const allTexts = (a: DemoArticle): string[] => [...abstractParagraphs(a), ...a.paragraphs.map((p) => p.text)];
const bodyText = (a: DemoArticle): string => a.paragraphs.map((p) => p.text).join('\n').toLowerCase();
const fullText = (a: DemoArticle): string => [a.title, a.abstract, bodyText(a)].join('\n').toLowerCase();
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const yearOf = (a: DemoArticle): number => Number(a.date.slice(0, 4));
const countBy = <T>(items: T[], key: (item: T) => string): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

/** ISSN check digit (ISO 3297): weights 8..2, modulus 11, 10 written as X. */
function issnCheckDigitOk(issn: string): boolean {
  const digits = issn.replace('-', '');
  let sum = 0;
  for (let i = 0; i < 7; i++) sum += Number(digits[i]) * (8 - i);
  const check = (11 - (sum % 11)) % 11;
  return digits[7] === (check === 10 ? 'X' : String(check));
}

describe('demo corpus file', () => {
  it('is valid UTF-8 with one JSON object per line and no trailing spaces', () => {
    expect(Buffer.from(content, 'utf8').equals(raw)).toBe(true);
    expect(content.endsWith('\n')).toBe(true);
    for (const line of lines) {
      expect(line.trim()).not.toBe('');
      expect(line).not.toMatch(/[ \t\r]$/);
      const parsed: unknown = JSON.parse(line);
      expect(typeof parsed).toBe('object');
      expect(Array.isArray(parsed)).toBe(false);
    }
  });

  it('has at least 42 articles and 320 paragraphs counting abstract paragraphs', () => {
    expect(articles.length).toBeGreaterThanOrEqual(42);
    const paragraphs = articles.reduce((n, a) => n + abstractParagraphs(a).length + a.paragraphs.length, 0);
    expect(paragraphs).toBeGreaterThanOrEqual(320);
  });
});

describe('demo articles', () => {
  it('have exactly the allowed fields with the expected types', () => {
    for (const a of articles) {
      expect(Object.keys(a).sort(), a.article_id).toEqual(FIELDS);
      expect(typeof a.article_id).toBe('string');
      expect(a.title.trim().length, a.article_id).toBeGreaterThan(10);
      expect(a.pubmed_id, a.article_id).toBeNull();
      expect(Number.isInteger(a.cited_by) && a.cited_by >= 0, a.article_id).toBe(true);
      expect(a.impact_factor === null || (typeof a.impact_factor === 'number' && a.impact_factor > 0), a.article_id).toBe(
        true,
      );
      expect(typeof a.abstract).toBe('string');
      expect(Array.isArray(a.paragraphs)).toBe(true);
      for (const p of a.paragraphs) expect(Object.keys(p).sort()).toEqual(['section', 'text']);
    }
  });

  it('have unique ids of the form demo-NNN and unique 10.5555 test DOIs', () => {
    const ids = articles.map((a) => a.article_id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^demo-\d{3}$/);
    const dois = articles.map((a) => a.article_doi);
    expect(new Set(dois).size).toBe(dois.length);
    for (const a of articles) {
      expect(a.article_doi).toMatch(/^10\.5555\/demo\.\d{4}\.\d{4}$/);
      expect(a.article_doi.split('.')[2]).toBe(String(yearOf(a)));
    }
  });

  it('have real calendar dates spread from 2000 to 2025', () => {
    for (const a of articles) expect(isValidDate(a.date), a.date).toBe(true);
    const years = articles.map(yearOf);
    for (const y of years) {
      expect(y).toBeGreaterThanOrEqual(2000);
      expect(y).toBeLessThanOrEqual(2025);
    }
    expect(years.some((y) => y <= 2003)).toBe(true);
    expect(years.some((y) => y >= 2024)).toBe(true);
    expect(new Set(years).size).toBeGreaterThanOrEqual(20);
  });

  it('use at least 6 allowed article types, research articles most common, some types rare', () => {
    const types = countBy(articles, (a) => a.article_type);
    for (const type of types.keys()) expect(ALLOWED_TYPES.has(type), type).toBe(true);
    expect(types.size).toBeGreaterThanOrEqual(6);
    const research = types.get('research-article') ?? 0;
    for (const [type, n] of types) if (type !== 'research-article') expect(research).toBeGreaterThan(n);
    const rare = [...types.values()].filter((n) => n >= 1 && n <= 3);
    expect(rare.length).toBeGreaterThanOrEqual(2);
  });

  it('come from at least 8 journals, each with one real-looking ISSN', () => {
    const issnByName = new Map<string, Set<string>>();
    const nameByIssn = new Map<string, Set<string>>();
    for (const a of articles) {
      expect(a.journal_issn).toMatch(ISSN_PATTERN);
      expect(a.journal_issn).toMatch(/^\d{4}-\d{3}[\dX]$/);
      expect(issnCheckDigitOk(a.journal_issn), a.journal_issn).toBe(true);
      expect(a.journal_name.trim()).not.toBe('');
      if (!issnByName.has(a.journal_name)) issnByName.set(a.journal_name, new Set());
      issnByName.get(a.journal_name)!.add(a.journal_issn);
      if (!nameByIssn.has(a.journal_issn)) nameByIssn.set(a.journal_issn, new Set());
      nameByIssn.get(a.journal_issn)!.add(a.journal_name);
    }
    expect(issnByName.size).toBeGreaterThanOrEqual(8);
    for (const [name, issns] of issnByName) expect([...issns], name).toHaveLength(1);
    for (const [issn, names] of nameByIssn) expect([...names], issn).toHaveLength(1);
  });

  it('have 1-8 authors each, at least 60 distinct, many recurring, some with diacritics or shared surnames', () => {
    const counts = new Map<string, number>();
    for (const a of articles) {
      expect(a.authors.length, a.article_id).toBeGreaterThanOrEqual(1);
      expect(a.authors.length, a.article_id).toBeLessThanOrEqual(8);
      expect(new Set(a.authors).size, a.article_id).toBe(a.authors.length);
      for (const name of a.authors) {
        expect(name).toBe(name.trim());
        expect(name.split(' ').length, name).toBeGreaterThanOrEqual(2);
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
    }
    expect(counts.size).toBeGreaterThanOrEqual(60);
    expect([...counts.values()].filter((n) => n >= 2).length).toBeGreaterThanOrEqual(20);
    expect([...counts.keys()].filter((name) => /[^\x00-\x7F]/.test(name)).length).toBeGreaterThanOrEqual(5);
    const surnames = countBy([...counts.keys()], (name) => name.split(' ').at(-1)!);
    expect([...surnames.values()].filter((n) => n >= 2).length).toBeGreaterThanOrEqual(3);
  });

  it('vary in citation counts and include a few null impact factors', () => {
    const cited = articles.map((a) => a.cited_by);
    expect(Math.min(...cited)).toBeLessThanOrEqual(5);
    expect(Math.max(...cited)).toBeGreaterThanOrEqual(1000);
    expect(new Set(cited).size).toBeGreaterThanOrEqual(articles.length - 2);
    const nulls = articles.filter((a) => a.impact_factor === null).length;
    expect(nulls).toBeGreaterThanOrEqual(2);
    expect(nulls).toBeLessThan(articles.length / 4);
  });

  it('have non-empty abstracts and paragraphs of 60-140 words with a section name', () => {
    for (const a of articles) {
      expect(a.paragraphs.length, a.article_id).toBeGreaterThanOrEqual(4);
      const abstract = abstractParagraphs(a);
      expect(abstract.length, a.article_id).toBeGreaterThanOrEqual(1);
      expect(abstract.length, a.article_id).toBeLessThanOrEqual(2);
      for (const p of a.paragraphs) expect(p.section.trim(), a.article_id).not.toBe('');
      for (const text of allTexts(a)) {
        expect(text, a.article_id).toBe(text.trim());
        expect(text).not.toMatch(/\s{2,}|\n/);
        const n = words(text);
        expect(n >= 60 && n <= 140, `${a.article_id}: ${n} words in "${text.slice(0, 50)}"`).toBe(true);
      }
    }
  });

  it('do not reuse sentences across articles', () => {
    const owner = new Map<string, string>();
    for (const a of articles) {
      for (const text of allTexts(a)) {
        for (const sentence of text.split(/(?<=[.!?])\s+/)) {
          if (sentence.length < 40) continue;
          const first = owner.get(sentence);
          expect(first === undefined || first === a.article_id, `${a.article_id} repeats ${first}: ${sentence}`).toBe(
            true,
          );
          owner.set(sentence, a.article_id);
        }
      }
    }
  });
});

describe('demo corpus coverage', () => {
  const regions = [
    'hippocampus',
    'ca1',
    'ca3',
    'dentate gyrus',
    'entorhinal cortex',
    'prefrontal cortex',
    'amygdala',
    'thalamus',
    'cerebell',
    'striatum',
    'basal ganglia',
    'substantia nigra',
    'v1',
    'barrel cortex',
    'somatosensory cortex',
    'brainstem',
    'hypothalamus',
    'olfactory bulb',
    'retina',
  ];
  const topics = [
    'place cells',
    'grid cells',
    'long-term potentiation',
    'ltp',
    'dopamine',
    'serotonin',
    '5-ht',
    'fear conditioning',
    'sleep',
    'consolidation',
    'alzheimer',
    'parkinson',
    'sodium channel',
    'dendritic integration',
    'theta',
    'gamma',
    'optogenetic',
    'calcium imaging',
    'fmri',
    'model',
    'interneuron',
    'parvalbumin',
    'astrocyte',
    'neurogenesis',
    'pyramidal',
  ];
  const tokens = ['CA1', 'CA3', '5-HT2A', 'GABA-A', 'Nav1.6', 'layer 2/3', 'D1', 'NMDA'];

  it('mentions every listed brain region and topic', () => {
    for (const term of [...regions, ...topics]) {
      const n = articles.filter((a) => fullText(a).includes(term)).length;
      expect(n, term).toBeGreaterThanOrEqual(1);
    }
  });

  it('uses technical tokens the analyser must handle', () => {
    for (const token of tokens) {
      const n = articles.filter((a) => allTexts(a).some((t) => t.includes(token))).length;
      expect(n, token).toBeGreaterThanOrEqual(1);
    }
  });

  it('makes multi-word filters succeed', () => {
    const hasWords = (a: DemoArticle, ...ws: string[]) =>
      ws.every((w) => new RegExp(`\\b${w}\\b`, 'i').test(bodyText(a)));
    expect(articles.filter((a) => hasWords(a, 'pyramidal', 'cells')).length).toBeGreaterThanOrEqual(5);
    const placeCellsInHippocampus = articles.filter(
      (a) => hasWords(a, 'place', 'cells') && /hippocamp/.test(bodyText(a)),
    );
    expect(placeCellsInHippocampus.length).toBeGreaterThanOrEqual(4);
    const placeCellsCa1 = articles.filter((a) => bodyText(a).includes('place cell') && bodyText(a).includes('ca1'));
    expect(placeCellsCa1.length).toBeGreaterThanOrEqual(3);
    const gridEntorhinal = articles.filter(
      (a) => bodyText(a).includes('grid cell') && bodyText(a).includes('entorhinal'),
    );
    expect(gridEntorhinal.length).toBeGreaterThanOrEqual(3);
    const dopamineStriatum = articles.filter((a) => hasWords(a, 'dopamine', 'striatum'));
    expect(dopamineStriatum.length).toBeGreaterThanOrEqual(3);
  });
});
