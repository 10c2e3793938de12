/**
 * Writes tiny ONNX text encoders shaped like the standard Hugging Face
 * exports, with a small BERT-style WordPiece tokenizer.json, so the reranker
 * is tested through onnxruntime-node without downloading anything:
 *
 *   cross-encoder      input_ids, attention_mask[, token_type_ids] -> logits [batch, 1]
 *   bi-encoder         ... -> last_hidden_state [batch, sequence, dim]
 *   bi-encoder-pooled  ... -> last_hidden_state and sentence_embedding [batch, dim]
 *
 * The graph: embedding lookups (Gather), hidden = tanh(embedded x W), masked
 * mean over the sequence (Cast, Unsqueeze, Mul, ReduceSum, Div) and, for the
 * cross-encoder, a linear head. Weights are seeded random. The protobuf is
 * encoded here by hand (ModelProto, onnx.proto field numbers).
 *
 *   tsx scripts/make-tiny-onnx.ts OUT_DIR [--kind cross-encoder|bi-encoder|bi-encoder-pooled] [--seed N]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { random } from './lib/random.js';

export type TinyOnnxKind = 'cross-encoder' | 'bi-encoder' | 'bi-encoder-pooled';

export interface TinyOnnxOptions {
  kind: TinyOnnxKind;
  seed?: number;
  /** Whether the model takes token_type_ids (BERT exports do; some others do not). */
  tokenTypes?: boolean;
  /** Written to config.json as max_position_embeddings, when given. */
  maxPositions?: number;
  dim?: number;
}

/** Everything needed to recompute the model's outputs independently. */
export interface TinyOnnxWeights {
  vocab: string[];
  dim: number;
  /** [vocab, dim], row-major. */
  wordEmbeddings: Float32Array;
  /** [2, dim], or null without token types. */
  typeEmbeddings: Float32Array | null;
  /** [dim, dim]: hidden = tanh(embedded x dense). */
  dense: Float32Array;
  /** [dim] and a bias: logit = pooled . classifier + bias (cross-encoder only). */
  classifier: Float32Array | null;
  classifierBias: number | null;
}

export const TINY_VOCAB = [
  '[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]',
  '.', ',', '?', '(', ')', '-',
  'the', 'a', 'of', 'in', 'and', 'is', 'to', 'what', 'which', 'does', 'how', 'during', 'with',
  'memory', 'hippocampus', 'sleep', 'brain', 'region', 'dopamine', 'reward', 'cortex', 'learning',
  'signal', 'consolidation', 'mice', 'rats', 'study', 'protein', 'cell', 'gene', 'neuron', 'weather',
  'glacier', 'warming', 'record', 'slow', 'wave', 'visual', 'motor', 'fear',
  '##s', '##ing', '##ed', '##al',
];

// --- protobuf encoding (also used by scripts/train-reranker.ts) -------------

/** A protobuf message under construction (wire types: 0 varint, 2 bytes, 5 fixed32). */
export class Message {
  private readonly parts: Buffer[] = [];

  varint(field: number, value: number | bigint): this {
    this.parts.push(varint((field << 3) | 0), varint(value));
    return this;
  }
  bytes(field: number, data: Buffer | string): this {
    const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.parts.push(varint((field << 3) | 2), varint(buffer.length), buffer);
    return this;
  }
  message(field: number, message: Message): this {
    return this.bytes(field, message.toBuffer());
  }
  float(field: number, value: number): this {
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.parts.push(varint((field << 3) | 5), b);
    return this;
  }
  toBuffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function varint(value: number | bigint): Buffer {
  let v = BigInt(value);
  const bytes: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v > 0n);
  return Buffer.from(bytes);
}

// onnx.proto enums
export const FLOAT = 1;
export const INT64 = 7;
const ATTRIBUTE_INT = 2;

export function tensor(name: string, dims: number[], data: Float32Array | BigInt64Array): Message {
  const t = new Message();
  for (const d of dims) t.varint(1, d); // dims
  t.varint(2, data instanceof Float32Array ? FLOAT : INT64); // data_type
  t.bytes(8, name); // name
  t.bytes(9, Buffer.from(data.buffer, data.byteOffset, data.byteLength)); // raw_data, little-endian
  return t;
}

export function node(op: string, inputs: string[], outputs: string[], intAttributes: Record<string, number> = {}): Message {
  const n = new Message();
  for (const i of inputs) n.bytes(1, i);
  for (const o of outputs) n.bytes(2, o);
  n.bytes(3, `${op}_${outputs[0]}`);
  n.bytes(4, op);
  for (const [name, value] of Object.entries(intAttributes)) {
    n.message(5, new Message().bytes(1, name).varint(3, value).varint(20, ATTRIBUTE_INT));
  }
  return n;
}

export function valueInfo(name: string, elementType: number, dims: (number | string)[]): Message {
  const shape = new Message();
  for (const d of dims) shape.message(1, typeof d === 'number' ? new Message().varint(1, d) : new Message().bytes(2, d));
  const tensorType = new Message().varint(1, elementType).message(2, shape);
  return new Message().bytes(1, name).message(2, new Message().message(1, tensorType));
}

// --- the model -------------------------------------------------------------

export function tinyWeights(options: TinyOnnxOptions): TinyOnnxWeights {
  const dim = options.dim ?? 8;
  const next = random(options.seed ?? 7);
  const matrix = (size: number) => Float32Array.from({ length: size }, () => next() * 2 - 1);
  const cross = options.kind === 'cross-encoder';
  return {
    vocab: TINY_VOCAB,
    dim,
    wordEmbeddings: matrix(TINY_VOCAB.length * dim),
    typeEmbeddings: options.tokenTypes === false ? null : matrix(2 * dim),
    dense: matrix(dim * dim),
    classifier: cross ? matrix(dim) : null,
    classifierBias: cross ? next() - 0.5 : null,
  };
}

export function buildTinyOnnx(options: TinyOnnxOptions, w: TinyOnnxWeights): Buffer {
  const d = w.dim;
  const graph = new Message().bytes(2, `tiny-${options.kind}`);
  const nodes: Message[] = [];
  const initializers: Message[] = [
    tensor('word_embeddings', [w.vocab.length, d], w.wordEmbeddings),
    tensor('dense_weight', [d, d], w.dense),
    tensor('axes_2', [1], BigInt64Array.from([2n])),
    tensor('axes_1', [1], BigInt64Array.from([1n])),
  ];
  const inputs = [valueInfo('input_ids', INT64, ['batch', 'sequence']), valueInfo('attention_mask', INT64, ['batch', 'sequence'])];

  nodes.push(node('Gather', ['word_embeddings', 'input_ids'], ['words']));
  let embedded = 'words';
  if (w.typeEmbeddings) {
    inputs.push(valueInfo('token_type_ids', INT64, ['batch', 'sequence']));
    initializers.push(tensor('token_type_embeddings', [2, d], w.typeEmbeddings));
    nodes.push(node('Gather', ['token_type_embeddings', 'token_type_ids'], ['types']), node('Add', ['words', 'types'], ['embedded']));
    embedded = 'embedded';
  }
  nodes.push(
    node('MatMul', [embedded, 'dense_weight'], ['projected']),
    node('Tanh', ['projected'], ['last_hidden_state']),
    // Masked mean over the sequence: sum(hidden * mask) / sum(mask).
    node('Cast', ['attention_mask'], ['mask_float'], { to: FLOAT }),
    node('Unsqueeze', ['mask_float', 'axes_2'], ['mask_3d']),
    node('Mul', ['last_hidden_state', 'mask_3d'], ['masked']),
    node('ReduceSum', ['masked', 'axes_1'], ['summed'], { keepdims: 0 }),
    node('ReduceSum', ['mask_3d', 'axes_1'], ['counts'], { keepdims: 0 }),
    node('Div', ['summed', 'counts'], ['pooled']),
  );

  const outputs: Message[] = [];
  if (options.kind === 'cross-encoder') {
    initializers.push(tensor('classifier_weight', [d, 1], w.classifier!), tensor('classifier_bias', [1], Float32Array.from([w.classifierBias!])));
    nodes.push(node('MatMul', ['pooled', 'classifier_weight'], ['scores']), node('Add', ['scores', 'classifier_bias'], ['logits']));
    outputs.push(valueInfo('logits', FLOAT, ['batch', 1]));
  } else {
    outputs.push(valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', d]));
    if (options.kind === 'bi-encoder-pooled') {
      nodes.push(node('Identity', ['pooled'], ['sentence_embedding']));
      outputs.push(valueInfo('sentence_embedding', FLOAT, ['batch', d]));
    }
  }

  return modelProto(graph, { nodes, initializers, inputs, outputs }, 'litserve make-tiny-onnx');
}

/** A ModelProto (IR version 8, default domain at opset 13) around a named GraphProto and its parts. */
export function modelProto(
  graph: Message,
  parts: { nodes: Message[]; initializers: Message[]; inputs: Message[]; outputs: Message[] },
  producer: string,
): Buffer {
  for (const n of parts.nodes) graph.message(1, n);
  for (const t of parts.initializers) graph.message(5, t);
  for (const i of parts.inputs) graph.message(11, i);
  for (const o of parts.outputs) graph.message(12, o);
  return new Message()
    .varint(1, 8) // ir_version
    .bytes(2, producer) // producer_name
    .message(7, graph)
    .message(8, new Message().bytes(1, '').varint(2, 13)) // opset_import: default domain, opset 13
    .toBuffer();
}

/** A BERT-style WordPiece tokenizer.json over TINY_VOCAB. */
export function tinyTokenizerJson(): object {
  return wordPieceTokenizerJson(TINY_VOCAB);
}

/**
 * A BERT-style WordPiece tokenizer.json over `vocab` (token id = position),
 * which must hold [CLS] and [SEP]; bracketed upper-case tokens such as [PAD]
 * are declared special.
 */
export function wordPieceTokenizerJson(vocab: readonly string[]): object {
  const idOf = (token: string) => {
    const id = vocab.indexOf(token);
    if (id < 0) throw new Error(`the vocabulary has no ${token}`);
    return id;
  };
  const special = (content: string, id: number) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const piece = (id: string, typeId: number) => ({ SpecialToken: { id, type_id: typeId } });
  const sequence = (id: 'A' | 'B', typeId: number) => ({ Sequence: { id, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: vocab.flatMap((token, id) => (/^\[[A-Z]+\]$/.test(token) ? [special(token, id)] : [])),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [piece('[CLS]', 0), sequence('A', 0), piece('[SEP]', 0)],
      pair: [piece('[CLS]', 0), sequence('A', 0), piece('[SEP]', 0), sequence('B', 1), piece('[SEP]', 1)],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [idOf('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [idOf('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, id) => [token, id])),
    },
  };
}

/** Writes model.onnx, tokenizer.json and (with maxPositions) config.json into `dir`; returns the weights. */
export async function writeTinyOnnxModel(dir: string, options: TinyOnnxOptions): Promise<TinyOnnxWeights> {
  const weights = tinyWeights(options);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'model.onnx'), buildTinyOnnx(options, weights));
  await writeFile(path.join(dir, 'tokenizer.json'), JSON.stringify(tinyTokenizerJson()));
  if (options.maxPositions !== undefined) {
    await writeFile(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', max_position_embeddings: options.maxPositions }));
  }
  return weights;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const out = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  const kind = (option('--kind') ?? 'cross-encoder') as TinyOnnxKind;
  if (!out || !['cross-encoder', 'bi-encoder', 'bi-encoder-pooled'].includes(kind)) {
    console.error('usage: tsx scripts/make-tiny-onnx.ts OUT_DIR [--kind cross-encoder|bi-encoder|bi-encoder-pooled] [--seed N]');
    process.exit(2);
  }
  const seed = option('--seed');
  await writeTinyOnnxModel(out, { kind, seed: seed === undefined ? undefined : Number(seed) });
  console.log(`wrote ${kind} model to ${out}`);
}
