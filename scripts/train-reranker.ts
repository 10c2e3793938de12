/**
 * `npm run models:reranker`: trains the offline reranker, a small
 * sentence-embedding model, from the paragraphs of an index (no download, no
 * Python), and writes it as a standard bi-encoder export that
 * `--reranker-model DIR` loads like any Hugging Face model:
 *
 *   model.onnx      input_ids, attention_mask (int64) -> Gather(word vectors)
 *                   -> masked mean pooling -> L2 normalisation -> sentence_embedding
 *   tokenizer.json  BERT-style WordPiece (uncased) whose vocabulary is the
 *                   corpus's frequent words plus [PAD] [UNK] [CLS] [SEP]
 *   config.json     the maximum input length and how the model was trained
 *
 * The word vectors are latent semantic analysis: a truncated SVD (randomised,
 * Halko, Martinsson and Tropp 2011) of the TF-IDF weighted stem x paragraph
 * matrix. Words sharing a Porter stem share a vector, scaled by the stem's
 * IDF, so the pooled embedding of a text is its TF-IDF vector projected onto
 * the corpus's latent topics, and the cosine of two texts is their LSI
 * similarity.
 *
 *   npm run models:reranker -- [--index DIR] [--out DIR] [--dim N] [--vocab-size N]
 *                              [--min-count N] [--max-paragraphs N] [--max-length N] [--seed N]
 *
 * Defaults: the server's index (<data>/index) and <data>/models/reranker.
 * The same seed and index give the same files.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Tokenizer } from '@huggingface/tokenizers';
import { stemmer } from 'stemmer';
import { loadConfig } from '../src/config.js';
import { IndexSnapshot } from '../src/search/snapshot.js';
import {
  FLOAT,
  INT64,
  Message,
  modelProto,
  node,
  tensor,
  valueInfo,
  wordPieceTokenizerJson,
} from './make-tiny-onnx.js';
import { random } from './lib/random.js';

export interface TrainOptions {
  /** Embedding width: the rank of the truncated SVD. */
  dim: number;
  /** Most words in the vocabulary, besides the special tokens. */
  vocabSize: number;
  /** Fewest occurrences of a word in the training paragraphs for it to be in the vocabulary. */
  minCount: number;
  /** Paragraphs sampled for training when the index holds more (memory and time stay bounded). */
  maxParagraphs: number;
  /** Longest input in tokens, written to config.json; longer texts are truncated by the loader. */
  maxLength: number;
  /** Power iterations of the randomised SVD: each brings it closer to the exact one. */
  powerIterations: number;
  seed: number;
  /** Receives a line per training step. */
  onProgress?: (message: string) => void;
}

export const DEFAULT_TRAIN_OPTIONS: Omit<TrainOptions, 'onProgress'> = {
  dim: 256,
  vocabSize: 60_000,
  minCount: 1,
  maxParagraphs: 100_000,
  maxLength: 512,
  powerIterations: 2,
  seed: 1,
};

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];

/** What was trained: enough to recompute every embedding independently. */
export interface TrainedModel {
  /** Token strings; the id of a token is its position. */
  vocab: string[];
  dim: number;
  /** [vocab, dim] row-major: the embedding of each token (zero for special tokens). */
  embeddings: Float32Array;
  paragraphs: number;
  /** Paragraphs in the index, of which `paragraphs` were sampled. */
  indexParagraphs: number;
  /** Distinct stems, the rows of the factorised matrix. */
  stems: number;
  /** The largest singular values, for the record. */
  singularValues: number[];
}

// --- corpus -------------------------------------------------------------------

/** The texts of up to `limit` live paragraphs of an index, sampled with `seed` when there are more. */
export async function readParagraphs(indexDir: string, limit: number, seed: number): Promise<{ texts: string[]; total: number }> {
  const snapshot = await IndexSnapshot.open(indexDir);
  const locations: [number, number][] = [];
  snapshot.segments.forEach(({ segment, liveParagraphs }, s) => {
    for (let p = 0; p < segment.paragraphCount; p++) if (!liveParagraphs || liveParagraphs.has(p)) locations.push([s, p]);
  });
  let chosen = locations;
  if (locations.length > limit) {
    // A seeded partial Fisher-Yates shuffle, then index order again (reading stays sequential).
    const next = random(seed);
    for (let i = 0; i < limit; i++) {
      const j = i + Math.floor(next() * (locations.length - i));
      [locations[i], locations[j]] = [locations[j]!, locations[i]!];
    }
    chosen = locations.slice(0, limit).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }
  const texts = chosen.map(([s, p]) => snapshot.segments[s]!.stored.paragraphText(p));
  return { texts, total: locations.length };
}

// --- words ----------------------------------------------------------------------

/** The parts of a loaded tokenizer that split text into words (not in the library's public types). */
interface WordSplitting {
  normalizer: { normalize(text: string): string };
  pre_tokenizer: { pre_tokenize_text(text: string): string[] };
}

// The normaliser and pre-tokeniser of the tokenizer.json written below, loaded by the
// library the reranker uses, so training counts exactly the words the model will see.
const { normalizer, pre_tokenizer: preTokenizer } = new Tokenizer(
  wordPieceTokenizerJson(SPECIAL_TOKENS) as ConstructorParameters<typeof Tokenizer>[0],
  {},
) as unknown as WordSplitting;
// The WordPiece model turns longer words into [UNK].
const MAX_WORD_CHARS = 100;

export function splitWords(text: string): string[] {
  return preTokenizer.pre_tokenize_text(normalizer.normalize(text));
}

/** Special tokens, then the most frequent words (ties in code-point order, so the result is deterministic). */
export function chooseVocabulary(texts: readonly string[], vocabSize: number, minCount: number): string[] {
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const word of splitWords(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const words = [...counts]
    .filter(([word, count]) => count >= minCount && [...word].length <= MAX_WORD_CHARS)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, vocabSize)
    .map(([word]) => word);
  return [...SPECIAL_TOKENS, ...words];
}

/** The group a word's vector is shared with: its Porter stem for plain words, itself otherwise ("ca1", "5"). */
export function stemOf(word: string): string {
  return /^[a-z]+$/.test(word) ? stemmer(word) : word;
}

// --- the stem x paragraph matrix ------------------------------------------------------

/** A sparse matrix in compressed rows. */
export interface SparseRows {
  rows: number;
  cols: number;
  start: Int32Array;
  index: Int32Array;
  value: Float64Array;
}

/**
 * One row per paragraph, one column per stem (`stemOfWord` maps the vocabulary's
 * words to stem ids; other words are left out): (1 + ln tf) x idf, the usual
 * LSA weighting (the log damps repeated words). Also returns each stem's IDF,
 * ln(N / df): the weight its word vectors carry.
 */
export function paragraphStemMatrix(texts: readonly string[], stemOfWord: Map<string, number>, stems: number): { matrix: SparseRows; idf: Float64Array } {
  const start = new Int32Array(texts.length + 1);
  const index: number[] = [];
  const tf: number[] = [];
  const df = new Float64Array(stems);
  texts.forEach((text, row) => {
    const counts = new Map<number, number>();
    for (const word of splitWords(text)) {
      const id = stemOfWord.get(word);
      if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [id, count] of [...counts].sort((a, b) => a[0] - b[0])) {
      index.push(id);
      tf.push(count);
      df[id]!++;
    }
    start[row + 1] = index.length;
  });
  const idf = df.map((n) => (n > 0 ? Math.log(texts.length / n) : 0));
  const value = Float64Array.from(tf, (count, i) => (1 + Math.log(count)) * idf[index[i]!]!);
  return { matrix: { rows: texts.length, cols: stems, start, index: Int32Array.from(index), value }, idf };
}

// --- randomised truncated SVD -------------------------------------------------------
// Dense matrices are row-major Float64Arrays with a known column count.

/** A (rows x cols) times M (cols x k). */
function multiply(a: SparseRows, m: Float64Array, k: number): Float64Array {
  const out = new Float64Array(a.rows * k);
  for (let r = 0; r < a.rows; r++) {
    const to = r * k;
    for (let e = a.start[r]!; e < a.start[r + 1]!; e++) {
      const w = a.value[e]!;
      const from = a.index[e]! * k;
      for (let j = 0; j < k; j++) out[to + j]! += w * m[from + j]!;
    }
  }
  return out;
}

/** Aᵀ (cols x rows) times M (rows x k). */
function multiplyTransposed(a: SparseRows, m: Float64Array, k: number): Float64Array {
  const out = new Float64Array(a.cols * k);
  for (let r = 0; r < a.rows; r++) {
    const from = r * k;
    for (let e = a.start[r]!; e < a.start[r + 1]!; e++) {
      const w = a.value[e]!;
      const to = a.index[e]! * k;
      for (let j = 0; j < k; j++) out[to + j]! += w * m[from + j]!;
    }
  }
  return out;
}

function transpose(a: SparseRows): SparseRows {
  const start = new Int32Array(a.cols + 1);
  for (let e = 0; e < a.index.length; e++) start[a.index[e]! + 1]!++;
  for (let c = 0; c < a.cols; c++) start[c + 1]! += start[c]!;
  const fill = start.slice(0, a.cols);
  const index = new Int32Array(a.index.length);
  const value = new Float64Array(a.index.length);
  for (let r = 0; r < a.rows; r++) {
    for (let e = a.start[r]!; e < a.start[r + 1]!; e++) {
      const at = fill[a.index[e]!]!++;
      index[at] = r;
      value[at] = a.value[e]!;
    }
  }
  return { rows: a.cols, cols: a.rows, start, index, value };
}

/**
 * Orthonormalises the columns of M (rows x k) in place by modified
 * Gram-Schmidt (its loss of orthogonality, float64 epsilon times the
 * condition number, stays negligible after the few power iterations used).
 * Columns that vanish (rank below k, as in tiny corpora) become zero.
 */
function orthonormalize(m: Float64Array, rows: number, k: number): void {
  const columns = Array.from({ length: k }, (_, j) => Float64Array.from({ length: rows }, (_, r) => m[r * k + j]!));
  for (let j = 0; j < k; j++) {
    const column = columns[j]!;
    for (let i = 0; i < j; i++) {
      const other = columns[i]!;
      let dot = 0;
      for (let r = 0; r < rows; r++) dot += column[r]! * other[r]!;
      for (let r = 0; r < rows; r++) column[r]! -= dot * other[r]!;
    }
    let norm = 0;
    for (let r = 0; r < rows; r++) norm += column[r]! * column[r]!;
    const scale = Math.sqrt(norm) > 1e-10 ? 1 / Math.sqrt(norm) : 0;
    for (let r = 0; r < rows; r++) column[r]! *= scale;
  }
  for (let j = 0; j < k; j++) for (let r = 0; r < rows; r++) m[r * k + j] = columns[j]![r]!;
}

/** Eigenvalues (descending) and eigenvectors (columns of an n x n row-major matrix) of a symmetric matrix, by cyclic Jacobi rotations. */
export function symmetricEigen(matrix: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  const scale = Math.max(1e-300, a.reduce((s, x) => s + x * x, 0));
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (off <= 1e-24 * scale) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        // The rotation that zeroes a[p][q] (Golub and Van Loan, algorithm 8.4.1).
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => a[y * n + y]! - a[x * n + x]!);
  const values = Float64Array.from(order, (i) => a[i * n + i]!);
  const vectors = new Float64Array(n * n);
  for (let k = 0; k < n; k++) order.forEach((i, j) => (vectors[k * n + j] = v[k * n + i]!));
  return { values, vectors };
}

function gaussians(count: number, next: () => number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i += 2) {
    // Box-Muller: two independent normal deviates from two uniforms.
    const radius = Math.sqrt(-2 * Math.log(1 - next()));
    const angle = 2 * Math.PI * next();
    out[i] = radius * Math.cos(angle);
    if (i + 1 < count) out[i + 1] = radius * Math.sin(angle);
  }
  return out;
}

/**
 * The `rank` largest singular values of A and its right singular vectors
 * (cols x rank), by a randomised range finder with power iterations. The
 * dense work (orthonormalisation, the small eigenproblem) is done on the
 * shorter side of A only, so a corpus with far more stems than paragraphs, or
 * the reverse, costs little more than the sparse products.
 */
export function truncatedSvd(a: SparseRows, rank: number, powerIterations: number, seed: number): { values: Float64Array; right: Float64Array; rank: number } {
  if (a.rows > a.cols) {
    const { values, left, rank: kept } = leftAndRight(transpose(a), rank, powerIterations, seed);
    return { values, right: left, rank: kept };
  }
  return leftAndRight(a, rank, powerIterations, seed);
}

/** For A with rows <= cols: singular values, left (rows x rank) and right (cols x rank) singular vectors. */
function leftAndRight(a: SparseRows, rank: number, powerIterations: number, seed: number): { values: Float64Array; left: Float64Array; right: Float64Array; rank: number } {
  const k = Math.min(rank, a.rows);
  const width = Math.min(k + 10, a.rows); // oversampling makes the top k accurate
  let q = multiply(a, gaussians(a.cols * width, random(seed)), width);
  orthonormalize(q, a.rows, width);
  for (let i = 0; i < powerIterations; i++) {
    q = multiply(a, multiplyTransposed(a, q, width), width);
    orthonormalize(q, a.rows, width);
  }
  // Qᵀ A Aᵀ Q = W Λ Wᵀ: A ≈ Q W Λ^½ (right vectors)ᵀ.
  const aat = multiply(a, multiplyTransposed(a, q, width), width);
  const gram = new Float64Array(width * width);
  for (let r = 0; r < a.rows; r++) {
    for (let i = 0; i < width; i++) {
      const qi = q[r * width + i]!;
      if (qi !== 0) for (let j = 0; j < width; j++) gram[i * width + j]! += qi * aat[r * width + j]!;
    }
  }
  for (let i = 0; i < width; i++) for (let j = 0; j < i; j++) gram[i * width + j] = gram[j * width + i] = (gram[i * width + j]! + gram[j * width + i]!) / 2;
  const eigen = symmetricEigen(gram, width);
  const values = Float64Array.from({ length: k }, (_, j) => Math.sqrt(Math.max(0, eigen.values[j]!)));
  const left = new Float64Array(a.rows * k);
  for (let r = 0; r < a.rows; r++) {
    for (let j = 0; j < k; j++) {
      let sum = 0;
      for (let i = 0; i < width; i++) sum += q[r * width + i]! * eigen.vectors[i * width + j]!;
      left[r * k + j] = sum;
    }
  }
  // Right vectors Aᵀ u / σ; directions with σ ≈ 0 (rank-deficient corpora) stay zero.
  const right = multiplyTransposed(a, left, k);
  const floor = values[0]! * 1e-9;
  for (let c = 0; c < a.cols; c++) for (let j = 0; j < k; j++) right[c * k + j] = values[j]! > floor ? right[c * k + j]! / values[j]! : 0;
  return { values, left, right, rank: k };
}

// --- training -------------------------------------------------------------------------

/** Trains the word vectors from paragraph texts. */
export function trainFromTexts(texts: readonly string[], options: Omit<TrainOptions, 'maxParagraphs' | 'maxLength'>): Omit<TrainedModel, 'indexParagraphs'> {
  const say = options.onProgress ?? (() => {});
  let started = performance.now();
  const step = (message: string) => {
    const now = performance.now();
    say(`${message} (${((now - started) / 1000).toFixed(1)} s)`);
    started = now;
  };
  const vocab = chooseVocabulary(texts, options.vocabSize, options.minCount);
  step(`vocabulary: ${vocab.length - SPECIAL_TOKENS.length} words from ${texts.length} paragraphs`);

  const stemIndex = new Map<string, number>();
  const wordStem = new Map<string, number>();
  for (const word of vocab.slice(SPECIAL_TOKENS.length)) {
    const stem = stemOf(word);
    if (!stemIndex.has(stem)) stemIndex.set(stem, stemIndex.size);
    wordStem.set(word, stemIndex.get(stem)!);
  }
  const { matrix, idf } = paragraphStemMatrix(texts, wordStem, stemIndex.size);
  step(`matrix: ${matrix.rows} paragraphs x ${matrix.cols} stems, ${matrix.index.length} non-zeros`);

  const svd = truncatedSvd(matrix, options.dim, options.powerIterations, options.seed);
  step(`truncated SVD: rank ${svd.rank}, singular values ${svd.values[0]?.toFixed(1)} .. ${svd.values[svd.rank - 1]?.toFixed(1)}`);

  // Width `dim` even when the corpus supports fewer directions: the extra ones stay zero.
  const embeddings = new Float32Array(vocab.length * options.dim);
  vocab.forEach((word, id) => {
    const stem = wordStem.get(word);
    if (stem === undefined) return; // special tokens carry no meaning
    for (let j = 0; j < svd.rank; j++) embeddings[id * options.dim + j] = idf[stem]! * svd.right[stem * svd.rank + j]!;
  });
  return {
    vocab,
    dim: options.dim,
    embeddings,
    paragraphs: texts.length,
    stems: stemIndex.size,
    singularValues: Array.from(svd.values.slice(0, 8), (v) => Number(v.toFixed(4))),
  };
}

// --- export ---------------------------------------------------------------------------

/** The ONNX graph: embedding lookup, masked mean pooling, L2 normalisation. */
export function buildEmbeddingOnnx(model: Pick<TrainedModel, 'vocab' | 'dim' | 'embeddings'>): Buffer {
  const nodes = [
    node('Gather', ['word_embeddings', 'input_ids'], ['token_embeddings']),
    // Masked mean over the sequence: sum(vectors * mask) / max(sum(mask), 1).
    node('Cast', ['attention_mask'], ['mask'], { to: FLOAT }),
    node('Unsqueeze', ['mask', 'axis_2'], ['mask_3d']),
    node('Mul', ['token_embeddings', 'mask_3d'], ['masked']),
    node('ReduceSum', ['masked', 'axis_1'], ['summed'], { keepdims: 0 }),
    node('ReduceSum', ['mask_3d', 'axis_1'], ['counts'], { keepdims: 0 }),
    node('Max', ['counts', 'one'], ['safe_counts']),
    node('Div', ['summed', 'safe_counts'], ['pooled']),
    // x / max(|x|, 1e-12), as sentence-transformers' Normalize does.
    node('Mul', ['pooled', 'pooled'], ['squares']),
    node('ReduceSum', ['squares', 'axis_1'], ['squared_norm'], { keepdims: 1 }),
    node('Sqrt', ['squared_norm'], ['norm']),
    node('Max', ['norm', 'epsilon'], ['safe_norm']),
    node('Div', ['pooled', 'safe_norm'], ['sentence_embedding']),
  ];
  const initializers = [
    tensor('word_embeddings', [model.vocab.length, model.dim], model.embeddings),
    tensor('axis_1', [1], BigInt64Array.from([1n])),
    tensor('axis_2', [1], BigInt64Array.from([2n])),
    tensor('one', [], Float32Array.from([1])),
    tensor('epsilon', [], Float32Array.from([1e-12])),
  ];
  const inputs = [valueInfo('input_ids', INT64, ['batch', 'sequence']), valueInfo('attention_mask', INT64, ['batch', 'sequence'])];
  const outputs = [valueInfo('sentence_embedding', FLOAT, ['batch', model.dim])];
  return modelProto(new Message().bytes(2, 'litserve-lsa-embedding'), { nodes, initializers, inputs, outputs }, 'litserve train-reranker');
}

/** Writes model.onnx, tokenizer.json and config.json; each file appears whole (written aside, then renamed). */
export async function writeModel(dir: string, model: TrainedModel, options: Omit<TrainOptions, 'onProgress'>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const config = {
    model_type: 'litserve-lsa-embedding',
    hidden_size: model.dim,
    vocab_size: model.vocab.length,
    // The reranker loader reads the input length limit here, as for BERT exports;
    // this model has no position embeddings, the limit only bounds the work per text.
    max_position_embeddings: options.maxLength,
    training: {
      method: 'LSA: randomised truncated SVD of the (1 + ln tf) x idf stem x paragraph matrix; word vector = idf x right singular vector of its stem',
      paragraphs: model.paragraphs,
      index_paragraphs: model.indexParagraphs,
      stems: model.stems,
      leading_singular_values: model.singularValues,
      ...options,
    },
  };
  const files: [string, string | Buffer][] = [
    ['model.onnx', buildEmbeddingOnnx(model)],
    ['tokenizer.json', JSON.stringify(wordPieceTokenizerJson(model.vocab))],
    ['config.json', JSON.stringify(config, null, 2) + '\n'],
  ];
  for (const [name, content] of files) {
    const target = path.join(dir, name);
    await writeFile(`${target}.tmp-${process.pid}`, content);
    await rename(`${target}.tmp-${process.pid}`, target);
  }
}

/** Reads the index, trains, and writes the model directory. */
export async function trainReranker(indexDir: string, outDir: string, options: TrainOptions): Promise<TrainedModel> {
  const { texts, total } = await readParagraphs(indexDir, options.maxParagraphs, options.seed);
  if (texts.length === 0) throw new Error(`the index ${indexDir} holds no paragraph to train on`);
  options.onProgress?.(`read ${texts.length} of ${total} paragraphs from ${indexDir}`);
  const model = { ...trainFromTexts(texts, options), indexParagraphs: total };
  const { onProgress, ...recorded } = options;
  await writeModel(outDir, model, recorded);
  onProgress?.(`wrote ${outDir}`);
  return model;
}

// --- command line ------------------------------------------------------------------------

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      index: { type: 'string' },
      out: { type: 'string' },
      data: { type: 'string' },
      dim: { type: 'string' },
      'vocab-size': { type: 'string' },
      'min-count': { type: 'string' },
      'max-paragraphs': { type: 'string' },
      'max-length': { type: 'string' },
      'power-iterations': { type: 'string' },
      seed: { type: 'string' },
    },
  });
  // The server's own defaults: its data directory and index (flag > environment > default).
  const config = loadConfig(values.data === undefined ? [] : ['--data', values.data], process.env);
  const indexDir = values.index ?? config.index!;
  const outDir = values.out ?? path.join(config.data, 'models', 'reranker');
  const integer = (raw: string | undefined, fallback: number, name: string, min: number) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer of at least ${min}, got "${raw}"`);
    return n;
  };
  const d = DEFAULT_TRAIN_OPTIONS;
  const options: TrainOptions = {
    dim: integer(values.dim, d.dim, 'dim', 1),
    vocabSize: integer(values['vocab-size'], d.vocabSize, 'vocab-size', 1),
    minCount: integer(values['min-count'], d.minCount, 'min-count', 1),
    maxParagraphs: integer(values['max-paragraphs'], d.maxParagraphs, 'max-paragraphs', 1),
    maxLength: integer(values['max-length'], d.maxLength, 'max-length', 8),
    powerIterations: integer(values['power-iterations'], d.powerIterations, 'power-iterations', 0),
    seed: integer(values.seed, d.seed, 'seed', 0),
    onProgress: (message) => process.stderr.write(`models:reranker: ${message}\n`),
  };
  const started = performance.now();
  const model = await trainReranker(indexDir, outDir, options);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `models:reranker: ${model.vocab.length} tokens x ${model.dim} dimensions in ${seconds} s; ` +
      `serve it with --reranker-model ${outDir}\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await main();
  } catch (error) {
    process.stderr.write(`models:reranker: error: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
