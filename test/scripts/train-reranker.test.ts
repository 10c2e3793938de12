/**
 * The reranker trainer, end to end on a corpus written here: train from an
 * index, load the result through the service's loadOnnxReranker, and check
 * its scores against a computation in plain JS from the files themselves
 * (the vocabulary of tokenizer.json, the embedding table read out of
 * model.onnx's protobuf, an independent tokenisation).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { ingest } from '../../src/corpus/ingest.js';
import { loadOnnxReranker, type OnnxReranker } from '../../src/rerank/index.js';
import { random } from '../../scripts/lib/random.js';
import {
  DEFAULT_TRAIN_OPTIONS,
  readParagraphs,
  symmetricEigen,
  trainReranker,
  truncatedSvd,
  type SparseRows,
  type TrainedModel,
  type TrainOptions,
} from '../../scripts/train-reranker.js';

// --- a corpus of three topics ------------------------------------------------------

const TOPICS = {
  sleep: ['hippocampus', 'sleep', 'memory', 'consolidation', 'replay', 'spindles', 'oscillations', 'recall', 'engram', 'rem'],
  climate: ['glacier', 'ice', 'melting', 'temperature', 'warming', 'ocean', 'arctic', 'carbon', 'sea', 'snow'],
  heart: ['heart', 'cardiac', 'artery', 'blood', 'pressure', 'hypertension', 'stroke', 'cholesterol', 'vascular', 'aorta'],
};
const FUNCTION_WORDS = ['the', 'of', 'and', 'in', 'a', 'is'];

/** "The", then `count` words of one topic each followed by a function word, drawn with `next`. */
function paragraph(words: readonly string[], count: number, next: () => number): string {
  const pick = (list: readonly string[]) => list[Math.floor(next() * list.length)]!;
  const out = ['The'];
  for (let i = 0; i < count; i++) out.push(pick(words), pick(FUNCTION_WORDS));
  return out.join(' ') + '.';
}

function corpusLines(): string[] {
  const next = random(42);
  const lines: string[] = [];
  for (const [topic, words] of Object.entries(TOPICS)) {
    for (let i = 0; i < 12; i++) {
      lines.push(
        JSON.stringify({
          article_id: `${topic}-${i}`,
          title: `${topic} study ${i}`,
          paragraphs: [0, 1].map((p) => ({ section: p === 0 ? 'Abstract' : 'Results', text: paragraph(words, 8, next) })),
        }),
      );
    }
  }
  return lines;
}

const OPTIONS: TrainOptions = { ...DEFAULT_TRAIN_OPTIONS, dim: 6, seed: 7 };

let root: string;
let indexDir: string;
let modelDir: string;
let model: TrainedModel;
let reranker: OnnxReranker;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'train-reranker-'));
  indexDir = path.join(root, 'index');
  modelDir = path.join(root, 'model');
  await writeFile(path.join(root, 'corpus.jsonl'), corpusLines().join('\n') + '\n');
  await ingest({ inputs: [path.join(root, 'corpus.jsonl')], indexDir });
  const progress: string[] = [];
  model = await trainReranker(indexDir, modelDir, { ...OPTIONS, onProgress: (line) => progress.push(line) });
  expect(progress.some((line) => line.startsWith('truncated SVD'))).toBe(true);
  reranker = await loadOnnxReranker(modelDir, { threads: 1, batchSize: 3 });
});

afterAll(async () => {
  await reranker?.close();
  await rm(root, { recursive: true, force: true });
});

// --- an independent reference ---------------------------------------------------------

/** The float tensors named in an ONNX file's graph initializers, read from the protobuf wire format. */
function onnxInitializers(file: Buffer): Map<string, { dims: number[]; data: Float32Array }> {
  function* fields(buffer: Buffer): Generator<{ field: number; value: number | Buffer }> {
    let at = 0;
    const varint = () => {
      let result = 0;
      for (let shift = 0; ; shift += 7) {
        const byte = buffer[at++]!;
        result += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) return result;
      }
    };
    while (at < buffer.length) {
      const key = varint();
      const wire = key & 7;
      if (wire === 0) yield { field: key >>> 3, value: varint() };
      else if (wire === 2) {
        const length = varint();
        yield { field: key >>> 3, value: buffer.subarray(at, (at += length)) };
      } else if (wire === 5) yield { field: key >>> 3, value: buffer.subarray(at, (at += 4)) };
      else throw new Error(`unexpected wire type ${wire}`);
    }
  }
  const tensors = new Map<string, { dims: number[]; data: Float32Array }>();
  for (const model of fields(file)) {
    if (model.field !== 7) continue; // ModelProto.graph
    for (const graph of fields(model.value as Buffer)) {
      if (graph.field !== 5) continue; // GraphProto.initializer
      const dims: number[] = [];
      let name = '';
      let raw = Buffer.alloc(0);
      for (const t of fields(graph.value as Buffer)) {
        if (t.field === 1) dims.push(t.value as number);
        if (t.field === 8) name = (t.value as Buffer).toString('utf8');
        if (t.field === 9) raw = Buffer.from(t.value as Buffer); // copied: aligned for Float32Array
      }
      tensors.set(name, { dims, data: new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4) });
    }
  }
  return tensors;
}

interface Reference {
  vocab: Map<string, number>;
  dim: number;
  table: Float32Array;
}

async function reference(dir: string): Promise<Reference> {
  const tokenizer = JSON.parse(await readFile(path.join(dir, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } };
  const table = onnxInitializers(await readFile(path.join(dir, 'model.onnx'))).get('word_embeddings')!;
  return { vocab: new Map(Object.entries(tokenizer.model.vocab)), dim: table.dims[1]!, table: table.data };
}

/** [CLS], the lower-cased ASCII words and punctuation marks of a text, [SEP]. */
function tokenIds(ref: Reference, text: string): number[] {
  const words = text.toLowerCase().match(/[a-z0-9]+|[^\sa-z0-9]/g) ?? [];
  return ['[CLS]', ...words, '[SEP]'].map((w) => ref.vocab.get(w) ?? ref.vocab.get('[UNK]')!);
}

/** The mean of the token rows, L2-normalised. */
function embed(ref: Reference, text: string): number[] {
  const ids = tokenIds(ref, text);
  const mean = new Array<number>(ref.dim).fill(0);
  for (const id of ids) for (let j = 0; j < ref.dim; j++) mean[j]! += ref.table[id * ref.dim + j]! / ids.length;
  const norm = Math.sqrt(mean.reduce((s, x) => s + x * x, 0));
  return mean.map((x) => (norm > 0 ? x / norm : 0));
}

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

// --- tests -------------------------------------------------------------------------------

const query = 'What does hippocampus replay during sleep do?';
const passages = [
  'Memory consolidation and spindles: an engram of recall.', // the same topic, no word in common with the query
  'Glacier ice is melting as the arctic ocean warms.',
  'Cardiac artery pressure in hypertension.',
  'Sleep, sleep and the hippocampus.',
  'Zyxt qwv: unheard words!',
];

describe('train-reranker', () => {
  it('writes a bi-encoder the service loads like a downloaded model', async () => {
    expect(reranker.kind).toBe('bi-encoder');
    expect(reranker.description).toContain('sentence_embedding');
    expect(reranker.description).toContain(`at most ${OPTIONS.maxLength} tokens`);
    const config = JSON.parse(await readFile(path.join(modelDir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ hidden_size: OPTIONS.dim, vocab_size: model.vocab.length, max_position_embeddings: OPTIONS.maxLength });
    expect(config.training).toMatchObject({ paragraphs: 72, seed: OPTIONS.seed });
  });

  it('has the corpus words in its vocabulary, special tokens first, function words weightless', () => {
    expect(model.vocab.slice(0, 4)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]']);
    for (const word of [...Object.values(TOPICS).flat(), ...FUNCTION_WORDS, '.']) expect(model.vocab).toContain(word);
    const norm = (token: string) => {
      const id = model.vocab.indexOf(token);
      return Math.hypot(...model.embeddings.subarray(id * model.dim, (id + 1) * model.dim));
    };
    expect(norm('[CLS]')).toBe(0);
    // In every paragraph, so an IDF of zero: they cannot move a score.
    expect(norm('the')).toBe(0);
    expect(norm('.')).toBe(0);
    expect(norm('hippocampus')).toBeGreaterThan(0);
  });

  it('scores as the cosine of mean-pooled embeddings computed from the exported files', async () => {
    const ref = await reference(modelDir);
    expect(ref.dim).toBe(OPTIONS.dim);
    expect(ref.vocab.size).toBe(model.vocab.length);
    const scores = await reranker.score(query, passages);
    const q = embed(ref, query);
    passages.forEach((p, i) => expect(scores[i]).toBeCloseTo(dot(q, embed(ref, p)), 5));
    expect(scores[4]).toBe(0); // nothing known: a zero vector
  });

  it('outputs unit-length mean-pooled embeddings, padding masked out', async () => {
    const ref = await reference(modelDir);
    const texts = [passages[0]!, 'Hippocampus.'];
    const rows = texts.map((t) => tokenIds(ref, t));
    const width = Math.max(...rows.map((r) => r.length));
    const ids = new BigInt64Array(rows.length * width);
    const mask = new BigInt64Array(rows.length * width);
    rows.forEach((r, b) => r.forEach((id, t) => ((ids[b * width + t] = BigInt(id)), (mask[b * width + t] = 1n))));
    const session = await ort.InferenceSession.create(path.join(modelDir, 'model.onnx'));
    try {
      const dims = [rows.length, width];
      const out = await session.run({ input_ids: new ort.Tensor('int64', ids, dims), attention_mask: new ort.Tensor('int64', mask, dims) });
      const embedding = out.sentence_embedding!;
      expect(embedding.dims).toEqual([2, OPTIONS.dim]);
      texts.forEach((text, b) => {
        const row = Array.from((embedding.data as Float32Array).subarray(b * OPTIONS.dim, (b + 1) * OPTIONS.dim));
        expect(Math.hypot(...row)).toBeCloseTo(1, 5);
        embed(ref, text).forEach((x, j) => expect(row[j]).toBeCloseTo(x, 5));
      });
    } finally {
      await session.release();
    }
  });

  it('ranks a paragraph on the question\'s topic above unrelated ones, even without a shared word', async () => {
    const [related, climate, heart] = await reranker.score(query, passages.slice(0, 3));
    expect(related).toBeGreaterThan(0.5);
    expect(related).toBeGreaterThan(climate! + 0.4);
    expect(related).toBeGreaterThan(heart! + 0.4);
  });

  it('is deterministic for a seed', async () => {
    const again = path.join(root, 'again');
    await trainReranker(indexDir, again, OPTIONS);
    for (const file of ['model.onnx', 'tokenizer.json', 'config.json']) {
      expect((await readFile(path.join(again, file))).equals(await readFile(path.join(modelDir, file)))).toBe(true);
    }
  });

  it('trains on live paragraphs only: a replaced article\'s old text is gone', async () => {
    const replacement = path.join(root, 'replacement.jsonl');
    await writeFile(replacement, JSON.stringify({ article_id: 'sleep-0', title: 'replaced', paragraphs: [{ section: 'Abstract', text: 'A new text.' }] }) + '\n');
    const copy = path.join(root, 'index-copy');
    await ingest({ inputs: [path.join(root, 'corpus.jsonl')], indexDir: copy });
    await ingest({ inputs: [replacement], indexDir: copy });
    const { texts, total } = await readParagraphs(copy, 1000, 1);
    expect(total).toBe(71);
    expect(texts).toContain('A new text.');
    const sample = await readParagraphs(copy, 10, 1);
    expect(sample.texts).toHaveLength(10);
    expect(sample.total).toBe(71);
  });
});

describe('truncated SVD', () => {
  it('matches the exact decomposition when the rank covers the matrix', () => {
    const next = random(5);
    const rows = 9;
    const cols = 30;
    const dense = Array.from({ length: rows * cols }, () => (next() < 0.3 ? next() * 4 - 2 : 0));
    const start = new Int32Array(rows + 1);
    const index: number[] = [];
    const value: number[] = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) if (dense[r * cols + c] !== 0) (index.push(c), value.push(dense[r * cols + c]!));
      start[r + 1] = index.length;
    }
    const a: SparseRows = { rows, cols, start, index: Int32Array.from(index), value: Float64Array.from(value) };
    // Exact: the eigenvalues of A Aᵀ (rows x rows) are the squared singular values.
    const aat = new Float64Array(rows * rows);
    for (let i = 0; i < rows; i++) for (let j = 0; j < rows; j++) for (let c = 0; c < cols; c++) aat[i * rows + j]! += dense[i * cols + c]! * dense[j * cols + c]!;
    const exact = symmetricEigen(aat, rows).values.map(Math.sqrt);

    const svd = truncatedSvd(a, 4, 2, 1);
    expect(svd.rank).toBe(4);
    for (let j = 0; j < 4; j++) {
      expect(svd.values[j]).toBeCloseTo(exact[j]!, 8);
      // A v_j has length sigma_j, and the right vectors are orthonormal.
      const column = Array.from({ length: cols }, (_, c) => svd.right[c * 4 + j]!);
      const av = Array.from({ length: rows }, (_, r) => column.reduce((s, x, c) => s + dense[r * cols + c]! * x, 0));
      expect(Math.hypot(...av)).toBeCloseTo(exact[j]!, 8);
      for (let k = 0; k <= j; k++) {
        const other = Array.from({ length: cols }, (_, c) => svd.right[c * 4 + k]!);
        expect(dot(column, other)).toBeCloseTo(k === j ? 1 : 0, 8);
      }
    }
    // The same through the transposed orientation (more rows than columns).
    const t = truncatedSvd(
      { rows: cols, cols: rows, ...transposed(a) },
      4,
      2,
      1,
    );
    for (let j = 0; j < 4; j++) expect(t.values[j]).toBeCloseTo(exact[j]!, 8);
  });
});

function transposed(a: SparseRows): Pick<SparseRows, 'start' | 'index' | 'value'> {
  const entries: [number, number, number][] = [];
  for (let r = 0; r < a.rows; r++) for (let e = a.start[r]!; e < a.start[r + 1]!; e++) entries.push([a.index[e]!, r, a.value[e]!]);
  entries.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const start = new Int32Array(a.cols + 1);
  for (const [c] of entries) start[c + 1]!++;
  for (let c = 0; c < a.cols; c++) start[c + 1]! += start[c]!;
  return { start, index: Int32Array.from(entries, (e) => e[1]), value: Float64Array.from(entries, (e) => e[2]) };
}
