/**
 * A generated corpus for scale benchmarks: paragraphs made of sentences
 * resampled from SciFact abstracts when ../shared/data/scifact is present
 * (realistic term statistics), else of words drawn from a Zipfian vocabulary.
 * Deterministic for a given seed.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ArticleInput } from '../../src/corpus/model.js';
import { random } from '../../scripts/lib/random.js';

export { random };

export const SCIFACT_DIR = path.resolve('..', 'shared', 'data', 'scifact');
export const TYPES = ['research-article', 'review-article', 'brief-report', 'editorial', 'meta-analysis'];
const JOURNALS = ['0896-6273', '0270-6474', '1097-6256', '1050-9631', '1047-3211', '1053-8119', '0006-8950', '2050-084X'];

export interface SentenceSource {
  kind: 'scifact' | 'zipf';
  sentence(rand: () => number): string;
}

export function sentenceSource(): SentenceSource {
  if (existsSync(path.join(SCIFACT_DIR, 'corpus.jsonl'))) {
    const sentences: string[] = [];
    for (const line of readFileSync(path.join(SCIFACT_DIR, 'corpus.jsonl'), 'utf8').split('\n')) {
      if (!line) continue;
      const { text } = JSON.parse(line) as { text: string };
      for (const s of text.split(/(?<=\.)\s+(?=[A-Z])/)) if (s.length > 20) sentences.push(s);
    }
    return { kind: 'scifact', sentence: (rand) => sentences[Math.floor(rand() * sentences.length)]! };
  }
  const vocabulary = Array.from({ length: 50_000 }, (_, i) => `w${i.toString(36)}`);
  // Zipf(1): rank r has weight 1/r; sample by inverting the cumulative distribution.
  const cumulative = new Float64Array(vocabulary.length);
  let total = 0;
  for (let r = 0; r < vocabulary.length; r++) cumulative[r] = total += 1 / (r + 1);
  const word = (rand: () => number) => {
    const target = rand() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo]!;
  };
  return {
    kind: 'zipf',
    sentence: (rand) => Array.from({ length: 8 + Math.floor(rand() * 20) }, () => word(rand)).join(' ') + '.',
  };
}

/** Yields articles of 1-19 paragraphs (about 10 on average) until `paragraphs` are produced. */
export function* syntheticArticles(paragraphs: number, source: SentenceSource, seed = 42): Generator<ArticleInput> {
  const rand = random(seed);
  let produced = 0;
  for (let id = 0; produced < paragraphs; id++) {
    const count = Math.min(paragraphs - produced, 1 + Math.floor(rand() * 19));
    const year = 2000 + Math.floor(rand() * 26);
    const month = 1 + Math.floor(rand() * 12);
    yield {
      article_id: `syn-${id}`,
      title: source.sentence(rand).slice(0, 120),
      authors: [`Author ${Math.floor(rand() * 5000)}`, `Author ${Math.floor(rand() * 5000)}`],
      article_doi: null,
      pubmed_id: null,
      date: `${year}-${String(month).padStart(2, '0')}-15`,
      article_type: TYPES[Math.floor(rand() * TYPES.length)]!,
      journal_issn: JOURNALS[Math.floor(rand() * JOURNALS.length)]!,
      journal_name: null,
      cited_by: Math.floor(rand() * 500),
      impact_factor: null,
      paragraphs: Array.from({ length: count }, (_, p) => ({
        section: p === 0 ? 'Abstract' : 'Body',
        text: Array.from({ length: 3 + Math.floor(rand() * 4) }, () => source.sentence(rand)).join(' '),
      })),
    };
    produced += count;
  }
}
