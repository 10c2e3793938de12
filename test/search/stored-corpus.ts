/** Seeded corpora full of JSON escaping edge cases, for the stored-fields tests. */
import { random } from '../../scripts/lib/random.js';
import { article } from './helpers.js';
import type { ArticleInput } from '../../src/corpus/model.js';

/** Pieces a serialiser may get wrong: quotes, backslashes, every control character, DEL,
 * line/paragraph separators, non-BMP characters, lone surrogates of both halves, non-ASCII. */
const EDGE_PIECES = [
  '"', '\\', '\\"', '"\\', '\u0000', '\u0001', '\b', '\t', '\n', '\f', '\r', '\u001b', '\u001f', '\u007f',
  '\u2028', '\u2029', '😀', '𝔸', '\ud800', '\udfff', '\ud83d', 'x\udc00y', 'é', 'Ω', '中文', '</script>', '\ufeff',
];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'quote', 'slash', 'emoji', 'cell', 'neuron'];

function edgeString(rand: () => number, length: number): string {
  let text = '';
  while (text.length < length) {
    text += rand() < 0.35 ? EDGE_PIECES[Math.floor(rand() * EDGE_PIECES.length)]! : `${WORDS[Math.floor(rand() * WORDS.length)]!} `;
  }
  return text;
}

/** The serialiser switches strategy at 8, 42 and 5000 characters: lengths around each. */
const LENGTHS = [0, 1, 7, 8, 9, 41, 42, 43, 200, 4999, 5000, 5001, 6000];

export function edgeCaseCorpus(count: number, seed: number): ArticleInput[] {
  const rand = random(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(rand() * values.length)]!;
  const text = () => edgeString(rand, pick(LENGTHS));
  const articles: ArticleInput[] = [];
  for (let i = 0; i < count; i++) {
    const paragraphs = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => ({
      // Some articles have no abstract, some several abstract paragraphs.
      section: rand() < 0.4 ? 'Abstract' : rand() < 0.5 ? edgeString(rand, 10) : 'Results',
      text: `${pick(WORDS)} ${text()} ${pick(WORDS)}`,
    }));
    // A few ids repeat: the later article replaces the earlier one.
    const id = rand() < 0.05 && i > 0 ? `edge-${Math.floor(rand() * i)}` : `edge-${i}${rand() < 0.3 ? pick(EDGE_PIECES) : ''}`;
    articles.push(
      article(id, [], {
        title: text(),
        authors: Array.from({ length: Math.floor(rand() * 4) }, () => edgeString(rand, 12)),
        article_doi: rand() < 0.5 ? null : `10.1/${edgeString(rand, 6)}`,
        pubmed_id: rand() < 0.5 ? null : String(Math.floor(rand() * 1e8)),
        date: rand() < 0.2 ? null : `20${String(10 + Math.floor(rand() * 15))}-0${1 + Math.floor(rand() * 9)}-1${Math.floor(rand() * 9)}`,
        article_type: pick(['research-article', 'review-article', edgeString(rand, 9)]),
        journal_issn: rand() < 0.3 ? null : '1234-567X',
        journal_name: rand() < 0.3 ? null : edgeString(rand, 20),
        cited_by: pick([0, 1, 47, 2 ** 31, 1e21]),
        impact_factor: pick([null, 0, 4.3, 0.1 + 0.2, 1e-7, 1e21, 123456.789, 2 ** 53]),
        paragraphs,
      }),
    );
  }
  return articles;
}

/** Seeded queries of one to three words drawn from `words`. */
export function randomWords(words: readonly string[], count: number, seed: number): string[] {
  const rand = random(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(rand() * 3) }, () => words[Math.floor(rand() * words.length)]!).join(' '),
  );
}
