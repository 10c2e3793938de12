/**
 * Writes a tiny llama-architecture GGUF (v3) with seeded random f32 weights
 * and a small SentencePiece-style vocabulary (control tokens, the 256 byte
 * tokens, printable ASCII and a few merges), so the language-model code can
 * be tested through node-llama-cpp without downloading anything.
 *
 *   tsx scripts/make-tiny-gguf.ts OUT.gguf [--chat-template] [--seed N]
 *
 * --chat-template adds ChatML special tokens and a ChatML chat template, so
 * both prompt paths (chat template / plain completion) can be exercised.
 * The output is gibberish; constrained by a grammar it is valid gibberish.
 */
import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { random } from './lib/random.js';

export interface TinyGgufOptions {
  seed?: number;
  chatTemplate?: boolean;
  embeddingLength?: number;
  blocks?: number;
  heads?: number;
  kvHeads?: number;
  feedForwardLength?: number;
  contextLength?: number;
}

// GGUF metadata value types (gguf.h).
const enum ValueType {
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
}

// llama.cpp token types.
const enum TokenType {
  NORMAL = 1,
  UNKNOWN = 2,
  CONTROL = 3,
  BYTE = 6,
}

const GGML_TYPE_F32 = 0;
const ALIGNMENT = 32;

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

// A handful of multi-character pieces so the SentencePiece merge path is used too.
const MERGES = ['▁t', 'he', '▁the', 'in', '▁a', 'an', 'er', 'on', 're', '▁"', '":', 'true', 'false', 'answer', 'sources'];

interface Vocabulary {
  tokens: string[];
  scores: number[];
  types: number[];
  bos: number;
  eos: number;
  unknown: number;
}

function tinyVocabulary(chatTemplate: boolean): Vocabulary {
  const tokens: string[] = [];
  const scores: number[] = [];
  const types: number[] = [];
  const add = (token: string, type: TokenType, score = 0) => {
    tokens.push(token);
    types.push(type);
    scores.push(score);
    return tokens.length - 1;
  };
  const unknown = add('<unk>', TokenType.UNKNOWN);
  const bos = add('<s>', TokenType.CONTROL);
  let eos = add('</s>', TokenType.CONTROL);
  if (chatTemplate) {
    add('<|im_start|>', TokenType.CONTROL);
    eos = add('<|im_end|>', TokenType.CONTROL);
  }
  // Byte fallback: any text can be expressed, whatever the pieces below lack.
  for (let byte = 0; byte < 256; byte++) add(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`, TokenType.BYTE);
  // SentencePiece writes a space as "▁"; a higher score merges first.
  add('▁', TokenType.NORMAL, -1);
  for (let code = 0x21; code <= 0x7e; code++) add(String.fromCharCode(code), TokenType.NORMAL, -2);
  MERGES.forEach((piece, i) => add(piece, TokenType.NORMAL, -3 - i));
  return { tokens, scores, types, bos, eos, unknown };
}

interface Tensor {
  name: string;
  /** ggml order: the fastest-varying dimension first. */
  dims: number[];
  data: Float32Array;
}

function tensors(vocabSize: number, o: Required<Omit<TinyGgufOptions, 'seed' | 'chatTemplate'>>, seed: number): Tensor[] {
  const next = random(seed);
  // Uniform in [-scale, scale] with the variance of a fan-in initialisation.
  const randomTensor = (name: string, dims: number[]): Tensor => {
    const size = dims.reduce((a, b) => a * b, 1);
    const scale = Math.sqrt(3 / dims[0]!);
    const data = new Float32Array(size);
    for (let i = 0; i < size; i++) data[i] = (next() * 2 - 1) * scale;
    return { name, dims, data };
  };
  const ones = (name: string, length: number): Tensor => ({ name, dims: [length], data: new Float32Array(length).fill(1) });

  const headDim = o.embeddingLength / o.heads;
  const kvDim = headDim * o.kvHeads;
  const list = [randomTensor('token_embd.weight', [o.embeddingLength, vocabSize])];
  for (let b = 0; b < o.blocks; b++) {
    list.push(
      ones(`blk.${b}.attn_norm.weight`, o.embeddingLength),
      randomTensor(`blk.${b}.attn_q.weight`, [o.embeddingLength, o.embeddingLength]),
      randomTensor(`blk.${b}.attn_k.weight`, [o.embeddingLength, kvDim]),
      randomTensor(`blk.${b}.attn_v.weight`, [o.embeddingLength, kvDim]),
      randomTensor(`blk.${b}.attn_output.weight`, [o.embeddingLength, o.embeddingLength]),
      ones(`blk.${b}.ffn_norm.weight`, o.embeddingLength),
      randomTensor(`blk.${b}.ffn_gate.weight`, [o.embeddingLength, o.feedForwardLength]),
      randomTensor(`blk.${b}.ffn_up.weight`, [o.embeddingLength, o.feedForwardLength]),
      randomTensor(`blk.${b}.ffn_down.weight`, [o.feedForwardLength, o.embeddingLength]),
    );
  }
  list.push(ones('output_norm.weight', o.embeddingLength), randomTensor('output.weight', [o.embeddingLength, vocabSize]));
  return list;
}

type MetadataValue =
  | { type: ValueType.UINT32 | ValueType.INT32 | ValueType.FLOAT32; value: number }
  | { type: ValueType.BOOL; value: boolean }
  | { type: ValueType.STRING; value: string }
  | { type: ValueType.ARRAY; of: ValueType.STRING; value: string[] }
  | { type: ValueType.ARRAY; of: ValueType.FLOAT32 | ValueType.INT32; value: number[] };

const u32 = (value: number): MetadataValue => ({ type: ValueType.UINT32, value });
const f32 = (value: number): MetadataValue => ({ type: ValueType.FLOAT32, value });
const str = (value: string): MetadataValue => ({ type: ValueType.STRING, value });

/** Little-endian binary writer for the GGUF layout. */
class Writer {
  private readonly chunks: Buffer[] = [];
  length = 0;

  bytes(buffer: Buffer): void {
    this.chunks.push(buffer);
    this.length += buffer.length;
  }
  u32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    this.bytes(b);
  }
  i32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(value);
    this.bytes(b);
  }
  u64(value: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    this.bytes(b);
  }
  f32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.bytes(b);
  }
  string(value: string): void {
    const utf8 = Buffer.from(value, 'utf8');
    this.u64(utf8.length);
    this.bytes(utf8);
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    if (pad) this.bytes(Buffer.alloc(pad));
  }
  value(v: MetadataValue): void {
    this.u32(v.type);
    switch (v.type) {
      case ValueType.UINT32:
        return this.u32(v.value);
      case ValueType.INT32:
        return this.i32(v.value);
      case ValueType.FLOAT32:
        return this.f32(v.value);
      case ValueType.BOOL:
        return this.bytes(Buffer.from([v.value ? 1 : 0]));
      case ValueType.STRING:
        return this.string(v.value);
      case ValueType.ARRAY:
        this.u32(v.of);
        this.u64(v.value.length);
        if (v.of === ValueType.STRING) for (const s of v.value) this.string(s);
        else if (v.of === ValueType.FLOAT32) for (const n of v.value) this.f32(n);
        else for (const n of v.value) this.i32(n);
    }
  }
  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

export function buildTinyGguf(options: TinyGgufOptions = {}): Buffer {
  const o = {
    embeddingLength: options.embeddingLength ?? 64,
    blocks: options.blocks ?? 2,
    heads: options.heads ?? 4,
    kvHeads: options.kvHeads ?? 2,
    feedForwardLength: options.feedForwardLength ?? 128,
    contextLength: options.contextLength ?? 4096,
  };
  const vocab = tinyVocabulary(options.chatTemplate ?? false);
  const metadata: [string, MetadataValue][] = [
    ['general.architecture', str('llama')],
    ['general.name', str('tiny-random-llama')],
    ['general.alignment', u32(ALIGNMENT)],
    ['general.file_type', u32(0)], // all f32
    ['llama.context_length', u32(o.contextLength)],
    ['llama.embedding_length', u32(o.embeddingLength)],
    ['llama.block_count', u32(o.blocks)],
    ['llama.feed_forward_length', u32(o.feedForwardLength)],
    ['llama.attention.head_count', u32(o.heads)],
    ['llama.attention.head_count_kv', u32(o.kvHeads)],
    ['llama.attention.layer_norm_rms_epsilon', f32(1e-5)],
    ['llama.rope.dimension_count', u32(o.embeddingLength / o.heads)],
    ['llama.rope.freq_base', f32(10000)],
    ['llama.vocab_size', u32(vocab.tokens.length)],
    ['tokenizer.ggml.model', str('llama')],
    ['tokenizer.ggml.tokens', { type: ValueType.ARRAY, of: ValueType.STRING, value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: ValueType.ARRAY, of: ValueType.FLOAT32, value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: ValueType.ARRAY, of: ValueType.INT32, value: vocab.types }],
    ['tokenizer.ggml.bos_token_id', u32(vocab.bos)],
    ['tokenizer.ggml.eos_token_id', u32(vocab.eos)],
    ['tokenizer.ggml.unknown_token_id', u32(vocab.unknown)],
    ['tokenizer.ggml.add_bos_token', { type: ValueType.BOOL, value: true }],
    ['tokenizer.ggml.add_eos_token', { type: ValueType.BOOL, value: false }],
  ];
  if (options.chatTemplate) metadata.push(['tokenizer.chat_template', str(CHATML_TEMPLATE)]);

  const list = tensors(vocab.tokens.length, o, options.seed ?? 42);
  const out = new Writer();
  out.bytes(Buffer.from('GGUF', 'ascii'));
  out.u32(3);
  out.u64(list.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.string(key);
    out.value(value);
  }
  // Tensor infos, with offsets into the data section, each aligned.
  let offset = 0;
  const offsets = list.map((t) => {
    const at = offset;
    offset += Math.ceil(t.data.byteLength / ALIGNMENT) * ALIGNMENT;
    return at;
  });
  list.forEach((t, i) => {
    out.string(t.name);
    out.u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(GGML_TYPE_F32);
    out.u64(offsets[i]!);
  });
  out.padTo(ALIGNMENT);
  for (const t of list) {
    out.bytes(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    out.padTo(ALIGNMENT);
  }
  return out.toBuffer();
}

export async function writeTinyGguf(filePath: string, options: TinyGgufOptions = {}): Promise<void> {
  await writeFile(filePath, buildTinyGguf(options));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const out = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--seed');
  if (!out) {
    console.error('usage: tsx scripts/make-tiny-gguf.ts OUT.gguf [--chat-template] [--seed N]');
    process.exit(2);
  }
  const seedAt = args.indexOf('--seed');
  await writeTinyGguf(out, {
    chatTemplate: args.includes('--chat-template'),
    seed: seedAt >= 0 ? Number(args[seedAt + 1]) : undefined,
  });
  console.log(`wrote ${out}`);
}
