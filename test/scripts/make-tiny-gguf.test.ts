import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLlama, GgmlType, LlamaLogLevel, readGgufFileInfo } from 'node-llama-cpp';
import { buildTinyGguf, CHATML_TEMPLATE, writeTinyGguf } from '../../scripts/make-tiny-gguf.js';

let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tiny-gguf-format-'));
  file = path.join(dir, 'tiny.gguf');
  await writeTinyGguf(file, { chatTemplate: true });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('make-tiny-gguf', () => {
  it('writes a GGUF v3 llama file that an independent reader understands', async () => {
    const info = await readGgufFileInfo(file, { logWarnings: false });
    expect(info.version).toBe(3);
    const m = info.metadata;
    expect(m.general.architecture).toBe('llama');
    expect(m.general.alignment).toBe(32);
    expect(info.architectureMetadata).toMatchObject({
      context_length: 4096,
      embedding_length: 64,
      block_count: 2,
      feed_forward_length: 128,
      attention: { head_count: 4, head_count_kv: 2 },
      rope: { dimension_count: 16 },
    });
    expect(m.tokenizer.ggml.model).toBe('llama');
    const tokens = m.tokenizer.ggml.tokens as readonly string[];
    expect(tokens.slice(0, 5)).toEqual(['<unk>', '<s>', '</s>', '<|im_start|>', '<|im_end|>']);
    expect(tokens).toContain('<0x0A>');
    expect(tokens).toContain('{');
    expect(m.tokenizer.ggml.scores).toHaveLength(tokens.length);
    expect(m.tokenizer.ggml.token_type).toHaveLength(tokens.length);
    expect(m.tokenizer.ggml.eos_token_id).toBe(4);
    expect(m.tokenizer.chat_template).toBe(CHATML_TEMPLATE);
  });

  it('lays out f32 tensors with the llama shapes, aligned, up to the end of the file', async () => {
    const info = await readGgufFileInfo(file, { logWarnings: false });
    const tensors = info.tensorInfo!;
    const vocab = (info.metadata.tokenizer.ggml.tokens as readonly string[]).length;
    expect(tensors).toHaveLength(1 + 2 * 9 + 2);
    const shape = (name: string) => tensors.find((t) => t.name === name)!.dimensions.map(Number);
    expect(shape('token_embd.weight')).toEqual([64, vocab]);
    expect(shape('blk.1.attn_k.weight')).toEqual([64, 32]);
    expect(shape('blk.0.ffn_down.weight')).toEqual([128, 64]);
    expect(shape('output.weight')).toEqual([64, vocab]);
    for (const t of tensors) {
      expect(t.ggmlType).toBe(GgmlType.F32);
      expect(Number(t.fileOffset) % 32).toBe(0);
    }
    const last = tensors.at(-1)!;
    const lastBytes = 4 * last.dimensions.map(Number).reduce((a, b) => a * b, 1);
    expect((await stat(file)).size).toBe(Math.ceil((Number(last.fileOffset) + lastBytes) / 32) * 32);

    // Norm weights are ones; the random weights are finite and bounded by their fan-in scale.
    const handle = await open(file);
    try {
      const read = async (name: string, count: number) => {
        const t = tensors.find((x) => x.name === name)!;
        const buffer = Buffer.alloc(4 * count);
        await handle.read(buffer, 0, buffer.length, Number(t.fileOffset));
        return new Float32Array(buffer.buffer, buffer.byteOffset, count);
      };
      expect([...(await read('output_norm.weight', 64))].every((x) => x === 1)).toBe(true);
      const embedding = await read('token_embd.weight', 64 * vocab);
      const bound = Math.sqrt(3 / 64);
      expect([...embedding].every((x) => Number.isFinite(x) && Math.abs(x) <= bound)).toBe(true);
      expect(new Set(embedding).size).toBeGreaterThan(embedding.length * 0.99);
    } finally {
      await handle.close();
    }
  });

  it('is reproducible for a seed and differs across seeds', () => {
    expect(buildTinyGguf({ seed: 7 }).equals(buildTinyGguf({ seed: 7 }))).toBe(true);
    expect(buildTinyGguf({ seed: 7 }).equals(buildTinyGguf({ seed: 8 }))).toBe(false);
  });

  it('has a vocabulary llama.cpp can use to write and read back JSON and any text', async () => {
    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: file });
    try {
      for (const text of ['{"has_answer": true, "answer": "the answer", "sources": [3, 14]}', 'Ünïcödé ✓ 😀\n\ttabs']) {
        const tokens = model.tokenize(text);
        expect(model.detokenize(tokens)).toBe(text);
      }
      // Merges apply: with the SentencePiece space prefix "the" is the single piece "▁the".
      expect(model.tokenize('the').length).toBe(1);
      expect(model.tokenize('xq').length).toBe(3);
    } finally {
      await model.dispose();
      await llama.dispose();
    }
  });
});
