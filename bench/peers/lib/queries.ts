/**
 * The fixed query sets every peer answers: SciFact claims, and 1-, 2- and
 * 4-word queries drawn (seeded) from the corpus sentences. Words are surface
 * words, not stems, so each peer's own analyser sees ordinary text; each
 * query's words have distinct stems and none is a stopword.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { analyzeUnique } from '../../../src/search/analysis/analyzer.js';
import { readQueries } from '../../../src/eval/evaluate.js';
import { parseQrels, type Qrels } from '../../../src/eval/metrics.js';
import { SCIFACT_DIR, random, sentenceSource } from '../../lib/synthetic-corpus.js';

export type QuerySetName = 'scifact' | '1 term' | '2 terms' | '4 terms';
export type QuerySets = Record<QuerySetName, string[]>;

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function wordQueries(count: number, terms: number, seed: number): string[] {
  const source = sentenceSource();
  const rand = random(seed);
  return Array.from({ length: count }, () => {
    const words = new Map<string, string>(); // stem -> surface word
    while (words.size < terms) {
      const candidates = source.sentence(rand).match(/[A-Za-z][A-Za-z-]{2,}/g) ?? [];
      const word = candidates[Math.floor(rand() * candidates.length)];
      if (!word) continue;
      const stems = analyzeUnique(word);
      // One word, one stem: no stopwords, nothing a hyphen splits into two terms.
      if (stems.length === 1 && !words.has(stems[0]!)) words.set(stems[0]!, word.toLowerCase());
    }
    return [...words.values()].join(' ');
  });
}

export async function querySets(count: number): Promise<QuerySets> {
  const scifact = [...(await readQueries(path.join(SCIFACT_DIR, 'queries.jsonl'))).values()].map(oneLine);
  return {
    scifact: scifact.slice(0, count),
    '1 term': wordQueries(count, 1, 7),
    '2 terms': wordQueries(count, 2, 8),
    '4 terms': wordQueries(count, 4, 9),
  };
}

/** The judged SciFact train queries (id, text) and their judgements. */
export async function judgedQueries(): Promise<{ ids: string[]; texts: string[]; qrels: Qrels }> {
  const queries = await readQueries(path.join(SCIFACT_DIR, 'queries.jsonl'));
  const qrels = parseQrels(await readFile(path.join(SCIFACT_DIR, 'qrels', 'train.tsv'), 'utf8'));
  const ids = [...qrels.keys()].filter((id) => queries.has(id));
  return { ids, texts: ids.map((id) => oneLine(queries.get(id)!)), qrels };
}
