/**
 * The reranker through onnxruntime-node on tiny models written by
 * scripts/make-tiny-onnx.ts, checked against the same math done here in
 * plain JS (float64) with an independent WordPiece tokenisation.
 */
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_VOCAB, writeTinyOnnxModel, type TinyOnnxOptions, type TinyOnnxWeights } from '../../scripts/make-tiny-onnx.js';
import { Tokenizer } from '@huggingface/tokenizers';
import { createReranker, highestTokenId, loadOnnxReranker, OnnxReranker, RerankerUnavailableError, type Reranker } from '../../src/rerank/index.js';
import { QueueFullError } from '../../src/llm/types.js';
import { InputEncoder } from '../../src/rerank/encoder.js';
import { detectHead, OnnxEncoderModel } from '../../src/rerank/onnx-model.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tiny-onnx-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

// --- an independent reference -------------------------------------------------

/** Lowercase, split words and punctuation, greedy longest-match WordPiece over TINY_VOCAB. */
function wordpiece(text: string): number[] {
  const ids: number[] = [];
  for (const word of text.toLowerCase().match(/[a-z0-9]+|[^\sa-z0-9]/g) ?? []) {
    let start = 0;
    const pieces: number[] = [];
    while (start < word.length) {
      let end = word.length;
      let id = -1;
      for (; end > start; end--) {
        id = TINY_VOCAB.indexOf((start > 0 ? '##' : '') + word.slice(start, end));
        if (id >= 0) break;
      }
      if (id < 0) {
        pieces.splice(0, pieces.length, TINY_VOCAB.indexOf('[UNK]'));
        break;
      }
      pieces.push(id);
      start = end;
    }
    ids.push(...pieces);
  }
  return ids;
}

const CLS = TINY_VOCAB.indexOf('[CLS]');
const SEP = TINY_VOCAB.indexOf('[SEP]');

/** Masked mean of tanh((word + type embedding) x dense) over the sequence. */
function pooled(w: TinyOnnxWeights, ids: number[], types: number[]): number[] {
  const d = w.dim;
  const mean = new Array<number>(d).fill(0);
  ids.forEach((id, t) => {
    const embedded = Array.from({ length: d }, (_, k) => w.wordEmbeddings[id * d + k]! + (w.typeEmbeddings ? w.typeEmbeddings[types[t]! * d + k]! : 0));
    for (let j = 0; j < d; j++) {
      let sum = 0;
      for (let k = 0; k < d; k++) sum += embedded[k]! * w.dense[k * d + j]!;
      mean[j]! += Math.tanh(sum) / ids.length;
    }
  });
  return mean;
}

function expectedCross(w: TinyOnnxWeights, query: number[], passage: number[]): number {
  const ids = [CLS, ...query, SEP, ...passage, SEP];
  const types = ids.map((_, i) => (i <= query.length + 1 ? 0 : 1));
  const p = pooled(w, ids, types);
  return p.reduce((sum, x, j) => sum + x * w.classifier![j]!, w.classifierBias!);
}

function expectedCosine(w: TinyOnnxWeights, query: number[], passage: number[]): number {
  const a = pooled(w, [CLS, ...query, SEP], new Array(query.length + 2).fill(0));
  const b = pooled(w, [CLS, ...passage, SEP], new Array(passage.length + 2).fill(0));
  const dot = a.reduce((s, x, i) => s + x * b[i]!, 0);
  return dot / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));
}

// --- fixtures -------------------------------------------------------------------

const query = 'What does the hippocampus do during sleep?';
const passages = [
  'The hippocampus consolidates memory during slow wave sleep.',
  'Weather records show glacier warming.',
  'Dopamine neurons signal reward, and the cortex is learning.',
  'Mice',
  'Which protein (gene) of the visual cortex is signaling fear in rats?',
];

async function build(name: string, options: TinyOnnxOptions, batchSize = 32): Promise<{ reranker: Reranker; weights: TinyOnnxWeights }> {
  const dir = path.join(root, name);
  const weights = await writeTinyOnnxModel(dir, options);
  const reranker = await createReranker({ rerankerModel: dir, rerankerThreads: 1, rerankerBatchSize: batchSize, rerankerQueueSize: 8, rerankerQueuePerClient: null });
  return { reranker: reranker!, weights };
}

describe('independent reference', () => {
  it('tokenises like the model tokenizer would (WordPiece continuation pieces)', () => {
    expect(wordpiece('Neurons signaling?').map((id) => TINY_VOCAB[id])).toEqual(['neuron', '##s', 'signal', '##ing', '?']);
    expect(wordpiece('xyz').map((id) => TINY_VOCAB[id])).toEqual(['[UNK]']);
  });
});

describe('cross-encoder', () => {
  for (const tokenTypes of [true, false]) {
    it(`scores each (query, passage) pair as the reference does (token_type_ids: ${tokenTypes})`, async () => {
      const { reranker, weights } = await build(`cross-${tokenTypes}`, { kind: 'cross-encoder', tokenTypes, seed: 11 });
      try {
        expect(reranker.kind).toBe('cross-encoder');
        expect(reranker.description).toContain('logits');
        const scores = await reranker.score(query, passages);
        const expected = passages.map((p) => expectedCross(weights, wordpiece(query), wordpiece(p)));
        expect(scores).toHaveLength(passages.length);
        scores.forEach((s, i) => expect(s).toBeCloseTo(expected[i]!, 5));
        // Not all equal: the scores depend on the passage.
        expect(new Set(scores.map((s) => s.toFixed(4))).size).toBe(passages.length);
      } finally {
        await reranker.close();
      }
    });
  }

  it('gives the same scores whatever the batch size (padding is masked, order kept)', async () => {
    const one = await build('cross-batch-1', { kind: 'cross-encoder', seed: 3 }, 1);
    const two = await build('cross-batch-2', { kind: 'cross-encoder', seed: 3 }, 2);
    try {
      const a = await one.reranker.score(query, passages);
      const b = await two.reranker.score(query, passages);
      b.forEach((s, i) => expect(s).toBeCloseTo(a[i]!, 5));
      expect(await one.reranker.score(query, [])).toEqual([]);
    } finally {
      await one.reranker.close();
      await two.reranker.close();
    }
  });

  it('tokenises one batch at a time, so the event loop gets a turn while many passages are scored', async () => {
    const dir = path.join(root, 'cross-turns');
    await writeTinyOnnxModel(dir, { kind: 'cross-encoder', seed: 3 });
    const tokenizer = new Tokenizer(JSON.parse(await readFile(path.join(dir, 'tokenizer.json'), 'utf8')), {});
    let tokenised = 0;
    const tokenize = tokenizer.tokenize.bind(tokenizer);
    tokenizer.tokenize = (text: string, ...rest: unknown[]) => (tokenised++, tokenize(text, ...(rest as [])));
    const model = await OnnxEncoderModel.load(path.join(dir, 'model.onnx'), 1);
    const reranker = new OnnxReranker(model, new InputEncoder(tokenizer, 512), 4, 'test');
    const reference = (await build('cross-turns-reference', { kind: 'cross-encoder', seed: 3 }, 32)).reranker;
    try {
      const many = Array.from({ length: 40 }, (_, i) => passages[i % passages.length]!);
      let tokenisedAtFirstTurn = -1;
      setImmediate(() => (tokenisedAtFirstTurn = tokenised));
      const scores = await reranker.score(query, many);
      expect(tokenisedAtFirstTurn).toBeGreaterThan(0);
      expect(tokenisedAtFirstTurn).toBeLessThan(many.length);
      // Same scores as one big batch.
      (await reference.score(query, many)).forEach((s, i) => expect(scores[i]).toBeCloseTo(s, 5));
    } finally {
      await reranker.close();
      await reference.close();
    }
  });

  it.each(['cross-encoder', 'bi-encoder'] as const)('%s: stops between batches once its signal aborts, with the signal\'s reason', async (kind) => {
    const dir = path.join(root, `aborted-${kind}`);
    await writeTinyOnnxModel(dir, { kind });
    const reranker = await loadOnnxReranker(dir, { threads: 1, batchSize: 2 });
    const model = (reranker as unknown as { model: OnnxEncoderModel }).model;
    const controller = new AbortController();
    let batches = 0;
    const run = model.run.bind(model);
    // The client goes away while the first batch runs.
    model.run = (batch) => (batches++, controller.abort(new Error('client disconnected')), run(batch));
    try {
      const many = Array.from({ length: 20 }, (_, i) => passages[i % passages.length]!);
      const outcome = await reranker.score(query, many, controller.signal).catch((e: unknown) => e);
      expect(outcome).toBe(controller.signal.reason);
      expect(batches).toBe(1);
    } finally {
      await reranker.close();
    }
  });

  it('truncates pairs to the maximum length in config.json, longest first', async () => {
    const { reranker, weights } = await build('cross-short', { kind: 'cross-encoder', seed: 5, maxPositions: 12 });
    try {
      const long = 'memory '.repeat(30) + 'weather';
      const [score] = await reranker.score('the brain', [long]);
      // 12 = [CLS] + 2 query tokens + [SEP] + 7 passage tokens + [SEP]: the passage, the longest, loses its tail.
      expect(score).toBeCloseTo(expectedCross(weights, wordpiece('the brain'), wordpiece(long).slice(0, 7)), 5);
      expect(reranker.description).toContain('at most 12 tokens');
    } finally {
      await reranker.close();
    }
  });
});

describe('bi-encoder', () => {
  for (const kind of ['bi-encoder', 'bi-encoder-pooled'] as const) {
    it(`scores the cosine of the query and passage embeddings (${kind})`, async () => {
      const { reranker, weights } = await build(kind, { kind, seed: 21 }, 2);
      try {
        expect(reranker.kind).toBe('bi-encoder');
        expect(reranker.description).toContain(kind === 'bi-encoder' ? 'last_hidden_state' : 'sentence_embedding');
        const scores = await reranker.score(query, passages);
        passages.forEach((p, i) => expect(scores[i]).toBeCloseTo(expectedCosine(weights, wordpiece(query), wordpiece(p)), 5));
        const [self] = await reranker.score(query, [query]);
        expect(self).toBeCloseTo(1, 6);
      } finally {
        await reranker.close();
      }
    });
  }
});

describe('loading', () => {
  it('is off when no model is configured', async () => {
    expect(await createReranker({ rerankerModel: null, rerankerThreads: 1, rerankerBatchSize: 8, rerankerQueueSize: 8, rerankerQueuePerClient: null })).toBeNull();
  });

  it('names the setting to fix when the directory or a file is missing', async () => {
    const load = (dir: string) => createReranker({ rerankerModel: dir, rerankerThreads: 1, rerankerBatchSize: 8, rerankerQueueSize: 8, rerankerQueuePerClient: null }).catch((e: unknown) => e);
    const missing = await load(path.join(root, 'absent'));
    expect(missing).toBeInstanceOf(RerankerUnavailableError);
    expect((missing as Error).message).toMatch(/directory not found: .*absent; set --reranker-model \/ RERANKER_MODEL/);

    const empty = path.join(root, 'empty');
    await mkdir(empty);
    expect(((await load(empty)) as Error).message).toMatch(/no model\.onnx in .*empty; check --reranker-model/);

    const noTokenizer = path.join(root, 'no-tokenizer');
    await mkdir(noTokenizer);
    await writeFile(path.join(noTokenizer, 'model.onnx'), 'x');
    expect(((await load(noTokenizer)) as Error).message).toMatch(/no tokenizer\.json in .*no-tokenizer/);

    await writeFile(path.join(noTokenizer, 'tokenizer.json'), '{}');
    const broken = await load(noTokenizer);
    expect(broken).toBeInstanceOf(RerankerUnavailableError);
    expect((broken as Error).message).toMatch(/cannot load the reranker model in .*no-tokenizer: .*; check --reranker-model/);
  });

  it('refuses at load a tokenizer.json of another model, whose ids run past the embedding table, naming the setting', async () => {
    const dir = path.join(root, 'mismatched-tokenizer');
    await writeTinyOnnxModel(dir, { kind: 'cross-encoder' });
    const tokenizerFile = path.join(dir, 'tokenizer.json');
    const tokenizer = JSON.parse(await readFile(tokenizerFile, 'utf8')) as { model: { vocab: Record<string, number> } };
    tokenizer.model.vocab.zebra = TINY_VOCAB.length + 1000;
    await writeFile(tokenizerFile, JSON.stringify(tokenizer));
    const refused = await createReranker({ rerankerModel: dir, rerankerThreads: 1, rerankerBatchSize: 8, rerankerQueueSize: 8, rerankerQueuePerClient: null }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RerankerUnavailableError);
    expect((refused as Error).message).toMatch(
      new RegExp(`cannot load the reranker model in .*mismatched-tokenizer: the tokenizer's ids go up to ${TINY_VOCAB.length + 1000}, which the model cannot read .*; check --reranker-model`),
    );
  });

  it('answers a model that fails while scoring as unavailable, naming the setting, never as a crash', async () => {
    const dir = path.join(root, 'scores-then-fails');
    await writeTinyOnnxModel(dir, { kind: 'cross-encoder' });
    const reranker = await loadOnnxReranker(dir, { threads: 1, batchSize: 8 });
    try {
      expect(await reranker.score('memory', ['sleep'])).toHaveLength(1);
      // The graph fails from now on (a broken runtime, an input it cannot take).
      (reranker as unknown as { model: { run: () => Promise<never> } }).model.run = () => Promise.reject(new Error('graph failed'));
      const failure = await reranker.score('memory', ['sleep']).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(RerankerUnavailableError);
      expect((failure as Error).message).toMatch(/the reranker failed to score: graph failed; check --reranker-model \/ RERANKER_MODEL/);
    } finally {
      await reranker.close();
    }
  });

  it('the configured reranker scores one request at a time and refuses beyond --reranker-queue-size waiting', async () => {
    const dir = path.join(root, 'queued');
    await writeTinyOnnxModel(dir, { kind: 'cross-encoder' });
    const reranker = (await createReranker({ rerankerModel: dir, rerankerThreads: 1, rerankerBatchSize: 2, rerankerQueueSize: 1, rerankerQueuePerClient: null }))!;
    try {
      const many = Array.from({ length: 20 }, (_, i) => passages[i % passages.length]!);
      const first = reranker.score(query, many);
      const second = reranker.score(query, many);
      const refused = await reranker.score(query, many).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(QueueFullError);
      expect((refused as Error).message).toMatch(/^too many rerankings are waiting for the reranker \(1\); retry in about \d+ s$/);
      const [a, b] = await Promise.all([first, second]);
      expect(b).toEqual(a);
      // Once they are done, there is room again.
      expect(await reranker.score(query, many)).toEqual(a);
    } finally {
      await reranker.close();
    }
  });

  it('finds the highest token id of a tokenizer.json, added tokens and Unigram vocabularies included', () => {
    expect(highestTokenId({ model: { vocab: { a: 0, b: 7, c: 3 } }, added_tokens: [{ id: 2 }] })).toBe(7);
    expect(highestTokenId({ model: { vocab: { a: 0 } }, added_tokens: [{ id: 9 }] })).toBe(9);
    expect(highestTokenId({ model: { vocab: [['a', 0], ['b', -1], ['c', -2]] } })).toBe(2);
  });

  it('finds the graph under onnx/ as Hugging Face repositories lay it out', async () => {
    const dir = path.join(root, 'hf-layout');
    await writeTinyOnnxModel(path.join(dir, 'onnx'), { kind: 'cross-encoder' });
    await rename(path.join(dir, 'onnx', 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
    const reranker = await createReranker({ rerankerModel: dir, rerankerThreads: 1, rerankerBatchSize: 8, rerankerQueueSize: 8, rerankerQueuePerClient: null });
    expect(reranker!.kind).toBe('cross-encoder');
    await reranker!.close();
  });

  it('recognises the standard export heads and rejects others', () => {
    const inputs = ['input_ids', 'attention_mask', 'token_type_ids'];
    expect(detectHead(inputs, ['logits'])).toEqual({ kind: 'cross-encoder', output: 'logits' });
    expect(detectHead(inputs.slice(0, 2), ['last_hidden_state'])).toEqual({ kind: 'bi-encoder', output: 'last_hidden_state' });
    expect(detectHead(inputs, ['token_embeddings', 'sentence_embedding'])).toEqual({ kind: 'bi-encoder', output: 'sentence_embedding' });
    expect(() => detectHead(inputs, ['pooler_output'])).toThrow(/unsupported model outputs \[pooler_output\]/);
    expect(() => detectHead(['input_ids', 'pixel_values'], ['logits'])).toThrow(/unsupported model inputs/);
  });
});
