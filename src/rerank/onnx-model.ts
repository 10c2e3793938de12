/**
 * An ONNX text encoder loaded with onnxruntime-node, and what kind of model
 * it is, read from its input and output names as the standard Hugging Face
 * exports name them.
 */
import * as ort from 'onnxruntime-node';
import type { Encoding } from './encoder.js';

export type ModelHead =
  /** `logits`: a relevance classifier over (query, passage) pairs. */
  | { kind: 'cross-encoder'; output: 'logits' }
  /** `sentence_embedding`: pooled in the graph; `last_hidden_state`: token vectors, pooled here. */
  | { kind: 'bi-encoder'; output: 'sentence_embedding' | 'last_hidden_state' };

const REQUIRED_INPUTS = ['input_ids', 'attention_mask'];
const OPTIONAL_INPUTS = ['token_type_ids'];

export function detectHead(inputNames: readonly string[], outputNames: readonly string[]): ModelHead {
  const unknown = inputNames.filter((name) => !REQUIRED_INPUTS.includes(name) && !OPTIONAL_INPUTS.includes(name));
  const missing = REQUIRED_INPUTS.filter((name) => !inputNames.includes(name));
  if (unknown.length > 0 || missing.length > 0) {
    throw new Error(
      `unsupported model inputs [${inputNames.join(', ')}]: expected input_ids, attention_mask and optionally token_type_ids`,
    );
  }
  if (outputNames.includes('logits')) return { kind: 'cross-encoder', output: 'logits' };
  if (outputNames.includes('sentence_embedding')) return { kind: 'bi-encoder', output: 'sentence_embedding' };
  if (outputNames.includes('last_hidden_state')) return { kind: 'bi-encoder', output: 'last_hidden_state' };
  throw new Error(
    `unsupported model outputs [${outputNames.join(', ')}]: expected logits (cross-encoder), sentence_embedding or last_hidden_state (bi-encoder)`,
  );
}

export interface ModelOutput {
  data: Float32Array;
  dims: readonly number[];
}

export class OnnxEncoderModel {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly head: ModelHead,
    private readonly usesTokenTypes: boolean,
  ) {}

  static async load(modelPath: string, threads: number): Promise<OnnxEncoderModel> {
    const session = await ort.InferenceSession.create(modelPath, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
    });
    try {
      const head = detectHead(session.inputNames, session.outputNames);
      return new OnnxEncoderModel(session, head, session.inputNames.includes('token_type_ids'));
    } catch (error) {
      await session.release();
      throw error;
    }
  }

  /** Runs one padded batch and returns the head's output. */
  async run(batch: readonly Encoding[]): Promise<ModelOutput> {
    const width = Math.max(...batch.map((e) => e.ids.length));
    const ids = new BigInt64Array(batch.length * width);
    const mask = new BigInt64Array(batch.length * width);
    const types = new BigInt64Array(batch.length * width);
    batch.forEach((encoding, row) => {
      // Padding positions stay 0 with a 0 mask, so the model ignores them whatever the pad id.
      encoding.ids.forEach((id, col) => {
        ids[row * width + col] = BigInt(id);
        mask[row * width + col] = 1n;
        types[row * width + col] = BigInt(encoding.typeIds[col]!);
      });
    });
    const dims = [batch.length, width];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, dims),
      attention_mask: new ort.Tensor('int64', mask, dims),
    };
    if (this.usesTokenTypes) feeds.token_type_ids = new ort.Tensor('int64', types, dims);
    const result = await this.session.run(feeds, [this.head.output]);
    const output = result[this.head.output]!;
    return { data: output.data as Float32Array, dims: output.dims };
  }

  close(): Promise<void> {
    return this.session.release();
  }
}
