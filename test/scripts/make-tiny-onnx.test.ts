import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { buildTinyOnnx, tinyWeights, writeTinyOnnxModel, type TinyOnnxKind } from '../../scripts/make-tiny-onnx.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tiny-onnx-format-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const expectedOutputs: Record<TinyOnnxKind, string[]> = {
  'cross-encoder': ['logits'],
  'bi-encoder': ['last_hidden_state'],
  'bi-encoder-pooled': ['last_hidden_state', 'sentence_embedding'],
};

describe('make-tiny-onnx', () => {
  for (const kind of Object.keys(expectedOutputs) as TinyOnnxKind[]) {
    it(`writes a ${kind} that onnxruntime loads with the Hugging Face input and output names`, async () => {
      const target = path.join(dir, kind);
      await writeTinyOnnxModel(target, { kind, maxPositions: 64 });
      const session = await ort.InferenceSession.create(path.join(target, 'model.onnx'));
      try {
        expect(session.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
        expect(session.outputNames).toEqual(expectedOutputs[kind]);
        const meta = session.inputMetadata[0]!;
        expect(meta.isTensor && meta.type).toBe('int64');
        expect(meta.isTensor && meta.shape).toEqual(['batch', 'sequence']);
      } finally {
        await session.release();
      }
      expect(JSON.parse(await readFile(path.join(target, 'config.json'), 'utf8')).max_position_embeddings).toBe(64);
      expect(JSON.parse(await readFile(path.join(target, 'tokenizer.json'), 'utf8')).model.type).toBe('WordPiece');
    });
  }

  it('is reproducible for a seed', () => {
    const options = { kind: 'cross-encoder' as const, seed: 9 };
    expect(buildTinyOnnx(options, tinyWeights(options)).equals(buildTinyOnnx(options, tinyWeights(options)))).toBe(true);
    const other = { ...options, seed: 10 };
    expect(buildTinyOnnx(other, tinyWeights(other)).equals(buildTinyOnnx(options, tinyWeights(options)))).toBe(false);
  });
});
