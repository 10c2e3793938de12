/**
 * Composing an extractive answer is pure CPU: 40 to 150 ms for five paragraphs of 100,000 characters (the
 * --max-paragraph-length default), seconds for longer ones. Done in one go it held every other request of
 * the server; the scorer pauses after each sentence and every thousand words, and the generator gives
 * the event loop a turn at those pauses. These tests count the turns other callbacks get before the
 * answer is complete, and the scorer's pauses (no duration is asserted).
 */
import { describe, expect, it } from 'vitest';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { sentenceScoring, splitSentences } from '../../src/llm/sentences.js';
import type { Steps } from '../../src/llm/turns.js';
import type { Context } from '../../src/llm/types.js';

const QUESTION = 'What do hippocampal place cells encode?';

/** About `chars` characters of distinct sentences, some of them matching the question. */
function paragraph(chars: number, seed: number): string {
  const sentences: string[] = [];
  for (let i = 0, length = 0; length < chars; i++) {
    const sentence =
      i % 50 === seed
        ? `Hippocampal place cells encode the position ${i} of the animal.`
        : `Recording ${i} of session ${seed} measured firing rates near landmark ${i % 13} in the arena.`;
    sentences.push(sentence);
    length += sentence.length + 1;
  }
  return sentences.join(' ').slice(0, chars);
}

/** Turns the event loop gave other callbacks while `work` ran, and the contexts read at each. */
async function turnsDuring<T>(work: () => Promise<T>, read: () => number = () => 0): Promise<{ result: T; readAtTurns: number[] }> {
  const readAtTurns: number[] = [];
  let done = false;
  const watch = () => {
    if (done) return;
    readAtTurns.push(read());
    setImmediate(watch);
  };
  setImmediate(watch);
  const result = await work();
  done = true;
  return { result, readAtTurns };
}

/** How many times the work paused before its end. */
function pausesOf(steps: Steps<unknown>): number {
  let pauses = 0;
  while (!steps.next().done) pauses++;
  return pauses;
}

describe('the extractive generator over long paragraphs', () => {
  it('gives the event loop turns before an answer over five paragraphs of 100,000 characters is complete', async () => {
    const contexts = Array.from({ length: 5 }, (_, i) => ({ id: i, text: paragraph(99_999, i) }));
    const { result, readAtTurns } = await turnsDuring(() => new ExtractiveGenerator().generate(QUESTION, contexts));
    expect(result.hasAnswer).toBe(true);
    expect(readAtTurns.length).toBeGreaterThan(0);
  });

  it('reads a paragraph only once the scorer comes to it, giving turns before that', async () => {
    let read = 0;
    const readOnUse = (id: number, text: string): Context => ({
      id,
      get text() {
        read = Math.max(read, id + 1);
        return text;
      },
    });
    const contexts = [readOnUse(0, paragraph(1_000_000, 0)), readOnUse(1, paragraph(1_000, 1))];
    const { result, readAtTurns } = await turnsDuring(() => new ExtractiveGenerator().generate(QUESTION, contexts), () => read);
    expect(result.sources).toContain(0);
    expect(readAtTurns.filter((r) => r === 1).length).toBeGreaterThan(0);
  });

  it('pauses after each sentence it analyses, not only while splitting the paragraph', () => {
    const text = paragraph(100_000, 0);
    const sentences = splitSentences(text).length;
    // A question of stopwords only: the sentences are analysed, then nothing is scored.
    expect(pausesOf(sentenceScoring('what is the', [text]))).toBeGreaterThanOrEqual(2 * sentences);
  });

  it('pauses every thousand words within one "sentence" without end punctuation (a table dumped as text)', () => {
    const dump = Array.from({ length: 50_000 }, (_, i) => `place cell ${i} firing rate ${i % 7}`).join(' ');
    expect(splitSentences(dump)).toHaveLength(1);
    const words = dump.split(' ').length;
    expect(pausesOf(sentenceScoring('what is the', [dump]))).toBeGreaterThanOrEqual(Math.floor(words / 1024));
  });
});
