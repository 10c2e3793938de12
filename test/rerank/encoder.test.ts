import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Tokenizer } from '@huggingface/tokenizers';
import { tinyTokenizerJson } from '../../scripts/make-tiny-onnx.js';
import { InputEncoder } from '../../src/rerank/encoder.js';

const tiny = () => new Tokenizer(tinyTokenizerJson(), {});
const words = (n: number, word: string) => Array(n).fill(word).join(' ');

describe('InputEncoder', () => {
  it('adds the special tokens and token types of the post-processor', () => {
    const encoder = new InputEncoder(tiny(), 512);
    // [CLS]=2 the=11 brain=27 [SEP]=3 memory=24 ##s=51
    expect(encoder.encodePairs('The brain', ['Memorys', 'brain'])).toEqual([
      { ids: [2, 11, 27, 3, 24, 51, 3], typeIds: [0, 0, 0, 0, 1, 1, 1] },
      { ids: [2, 11, 27, 3, 27, 3], typeIds: [0, 0, 0, 0, 1, 1] },
    ]);
    expect(encoder.encode('the brain')).toEqual({ ids: [2, 11, 27, 3], typeIds: [0, 0, 0, 0] });
  });

  it('truncates the longer sequence first, the second one on ties', () => {
    const encoder = new InputEncoder(tiny(), 16);
    const { ids, typeIds } = encoder.encodePairs(words(10, 'brain'), [words(20, 'memory')])[0]!;
    expect(ids).toHaveLength(16);
    // 13 text tokens: 20 -> 10 from the passage, then alternately, the passage first: 7 + 6.
    expect(ids.filter((id) => id === 27)).toHaveLength(7);
    expect(ids.filter((id) => id === 24)).toHaveLength(6);
    expect(typeIds.filter((t) => t === 1)).toHaveLength(7);
  });

  it('truncates each pair on its own: a long passage does not shorten the query of the next pair', () => {
    const encoder = new InputEncoder(tiny(), 16);
    const [long, short] = encoder.encodePairs(words(10, 'brain'), [words(20, 'memory'), 'memory']);
    expect(long!.ids.filter((id) => id === 27)).toHaveLength(7);
    expect(short!.ids).toEqual([2, ...Array(10).fill(27), 3, 24, 3]);
  });

  it('tokenises no more text than the maximum length can use, never splitting a character', () => {
    const tokenizer = tiny();
    const seen: string[] = [];
    const tokenize = tokenizer.tokenize.bind(tokenizer);
    tokenizer.tokenize = (text: string, ...rest: unknown[]) => (seen.push(text), tokenize(text, ...(rest as [])));
    const encoder = new InputEncoder(tokenizer, 16);
    const huge = words(50_000, 'memory');
    expect(encoder.encodePairs('brain', [huge])).toEqual(encoder.encodePairs('brain', [words(20, 'memory')]));
    expect(encoder.encode(huge)).toEqual(encoder.encode(words(20, 'memory')));
    // The longest text tokenised is far shorter than the 350,000-character passage.
    expect(Math.max(...seen.map((text) => text.length))).toBeLessThan(100 * 16);

    seen.length = 0;
    for (const padding of ['', 'a']) encoder.encode(padding + '😀'.repeat(50_000));
    for (const text of seen) expect(text).not.toMatch(/[\ud800-\udbff]$/);
  });

  it('keeps short inputs whole and cuts single sequences to the limit', () => {
    const encoder = new InputEncoder(tiny(), 8);
    expect(encoder.encodePairs('brain', ['memory'])[0]!.ids).toEqual([2, 27, 3, 24, 3]);
    expect(encoder.encode(words(20, 'memory')).ids).toEqual([2, 24, 24, 24, 24, 24, 24, 3]);
  });
});

const BERT = fileURLToPath(new URL('../../../shared/models/bert-base-uncased-tokenizer/', import.meta.url));
const bertPresent = existsSync(`${BERT}tokenizer.json`);
if (!bertPresent) console.warn(`skipping the BERT tokenizer tests: ${BERT}tokenizer.json is absent`);

describe.skipIf(!bertPresent)('with the real bert-base-uncased tokenizer.json', () => {
  const load = () => new Tokenizer(JSON.parse(readFileSync(`${BERT}tokenizer.json`, 'utf8')), {});

  it('encodes a pair to the known BERT ids', () => {
    const encoder = new InputEncoder(load(), 128);
    const { ids, typeIds } = encoder.encodePairs('Hello, my dog is cute', ['How many people live in Berlin?'])[0]!;
    // "Hello, my dog is cute" is the Hugging Face documentation's example: [CLS] 7592 1010 2026 3899 2003 10140 [SEP].
    const first = [101, 7592, 1010, 2026, 3899, 2003, 10140, 102];
    // The second sentence's ids are looked up in vocab.txt (id = line number - 1), independently of tokenizer.json.
    const vocab = readFileSync(`${BERT}vocab.txt`, 'utf8').split('\n');
    const second = ['how', 'many', 'people', 'live', 'in', 'berlin', '?'].map((w) => vocab.indexOf(w));
    expect(second).toEqual([2129, 2116, 2111, 2444, 1999, 4068, 1029]);
    expect(ids).toEqual([...first, ...second, 102]);
    expect(typeIds).toEqual([...Array(8).fill(0), ...Array(8).fill(1)]);
  });

  it('splits unknown words into WordPiece pieces and truncates long passages', () => {
    const encoder = new InputEncoder(load(), 16);
    const vocab = readFileSync(`${BERT}vocab.txt`, 'utf8').split('\n');
    const { ids } = encoder.encodePairs('hippocampal', ['sleep '.repeat(50)])[0]!;
    expect(ids).toHaveLength(16);
    const queryPieces = ids.slice(1, ids.indexOf(102)).map((id) => vocab[id]);
    expect(queryPieces.join('').replace(/##/g, '')).toBe('hippocampal');
    expect(queryPieces.length).toBeGreaterThan(1);
  });
});
