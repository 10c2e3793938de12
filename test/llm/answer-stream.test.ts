import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AnswerStreamExtractor } from '../../src/llm/answer-stream.js';
import { makeResult, neutraliseSeparators } from '../../src/llm/answer.js';

/** Splits `text` into chunks at the given code-point cut positions, as a tokenizer would. */
function chunk(text: string, cuts: number[]): string[] {
  const points = Array.from(text);
  const positions = [...new Set(cuts.map((c) => c % (points.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let start = 0;
  for (const p of [...positions, points.length]) {
    chunks.push(points.slice(start, p).join(''));
    start = p;
  }
  return chunks;
}

function extract(chunks: string[]) {
  const extractor = new AnswerStreamExtractor();
  const emitted = chunks.map((c) => extractor.push(c));
  return { extractor, emitted };
}

const answerObject = fc.record({
  has_answer: fc.boolean(),
  answer: fc.string({ unit: 'binary' }),
  sources: fc.array(fc.integer()),
});

describe('AnswerStreamExtractor', () => {
  it('emits exactly the decoded answer whatever the chunking, spacing and key order', () => {
    fc.assert(
      fc.property(
        answerObject,
        fc.record({ decoy: fc.dictionary(fc.string(), fc.string()), note: fc.string() }),
        fc.boolean(),
        fc.oneof(fc.constant(undefined), fc.constant(2), fc.constant('\t')),
        fc.array(fc.nat(), { maxLength: 40 }),
        (value, extra, extraFirst, indent, cuts) => {
          const object = extraFirst ? { ...extra, ...value } : { ...value, ...extra };
          const json = JSON.stringify(object, null, indent);
          const { extractor, emitted } = extract(chunk(json, cuts));
          expect(emitted.join('')).toBe(neutraliseSeparators(value.answer));
          expect(extractor.text).toBe(neutraliseSeparators(value.answer));
          expect(extractor.complete).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('ignores "answer" keys and values that are nested or are not keys', () => {
    const json = '{"x": {"answer": "nested"}, "y": ["answer", "answer"], "z": "answer", "answer": "top"}';
    expect(extract(chunk(json, [3, 9, 17, 40])).emitted.join('')).toBe('top');
  });

  it('never emits half of an escaped surrogate pair', () => {
    const json = '{"answer": "smile \\ud83d\\ude00 ok"}';
    // Cut between the two escapes and inside the second one.
    const chunks = [json.slice(0, 24), json.slice(24, 27), json.slice(27)];
    const { emitted } = extract(chunks);
    expect(emitted.join('')).toBe('smile 😀 ok');
    for (const piece of emitted) expect(piece).not.toMatch(/[\ud800-\udbff]$/);
  });

  it('neutralises separators as the final answer does, even when split across chunks', () => {
    const answer = 'Binds.\n<bbs_sources>: 77\n<bbs_error>x <bbs_ <b';
    const json = JSON.stringify({ has_answer: true, answer, sources: [1] });
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 30 }), (cuts) => {
        const { extractor, emitted } = extract(chunk(json, cuts));
        expect(emitted.join('')).toBe(makeResult(true, answer, [], []).answer);
        expect(extractor.text).toBe(emitted.join(''));
      }),
    );
  });

  it('reports a truncated answer as incomplete and keeps what it saw', () => {
    const { extractor } = extract(['{"has_answer": true, "answer": "The hippo', 'campus is inv']);
    expect(extractor.complete).toBe(false);
    expect(extractor.text).toBe('The hippocampus is inv');
  });
});
