/**
 * The ONNX reranker: a model directory with model.onnx and tokenizer.json
 * (a standard Hugging Face export), scored as a cross-encoder or as a
 * sentence-embedding bi-encoder depending on the model's outputs.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import type { Config } from '../config.js';
import { InputEncoder, type Encoding } from './encoder.js';
import { QueuedReranker } from './queued.js';
import { perCallerPlaces } from '../llm/queue.js';
import type { ModelOutput, OnnxEncoderModel } from './onnx-model.js';
import { type Reranker, RerankerUnavailableError } from './types.js';
import { cosine, meanPool, relevance, rows } from './vectors.js';

export { type Reranker, RerankerUnavailableError } from './types.js';

type RerankerConfig = Pick<Config, 'rerankerModel' | 'rerankerThreads' | 'rerankerBatchSize' | 'rerankerQueueSize' | 'rerankerQueuePerClient'>;

const SETTING = '--reranker-model / RERANKER_MODEL';
// Where Hugging Face repositories keep the graph: at the top or under onnx/.
const MODEL_FILES = ['model.onnx', path.join('onnx', 'model.onnx')];
const DEFAULT_MAX_LENGTH = 512;

/** The configured reranker, taken one scoring at a time, or null when none is configured (reranking off). */
export async function createReranker(config: RerankerConfig): Promise<Reranker | null> {
  if (config.rerankerModel === null) return null;
  const reranker = await loadOnnxReranker(config.rerankerModel, { threads: config.rerankerThreads, batchSize: config.rerankerBatchSize });
  return new QueuedReranker(reranker, config.rerankerQueueSize, perCallerPlaces(config.rerankerQueuePerClient, config.rerankerQueueSize));
}

export async function loadOnnxReranker(directory: string, options: { threads: number; batchSize: number }): Promise<OnnxReranker> {
  const dir = path.resolve(directory);
  if (!(await isKind(dir, 'directory'))) {
    throw new RerankerUnavailableError(
      `reranker model directory not found: ${dir}; set ${SETTING} to a directory with model.onnx and tokenizer.json, or unset it to disable reranking`,
    );
  }
  const modelFile = await firstFile(dir, MODEL_FILES);
  if (!modelFile) throw new RerankerUnavailableError(`no model.onnx in ${dir}; check ${SETTING}`);
  const tokenizerFile = path.join(dir, 'tokenizer.json');
  if (!(await isKind(tokenizerFile, 'file'))) throw new RerankerUnavailableError(`no tokenizer.json in ${dir}; check ${SETTING}`);

  try {
    const tokenizerJson = await readJson(tokenizerFile);
    const tokenizerConfig = (await readOptionalJson(path.join(dir, 'tokenizer_config.json'))) ?? {};
    const modelConfig = (await readOptionalJson(path.join(dir, 'config.json'))) ?? {};
    const maxLength = maxLengthOf(tokenizerJson, tokenizerConfig, modelConfig);
    const encoder = new InputEncoder(new Tokenizer(tokenizerJson, tokenizerConfig), maxLength);
    // onnxruntime is loaded only once a reranker is configured: its native library is ~15 MiB of RSS.
    const { OnnxEncoderModel: Model } = await import('./onnx-model.js');
    const model = await Model.load(modelFile, options.threads);
    const reranker = new OnnxReranker(model, encoder, options.batchSize, `${path.basename(dir)}, intra-op threads ${options.threads}`);
    await reranker.checkVocabulary(highestTokenId(tokenizerJson));
    return reranker;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RerankerUnavailableError(`cannot load the reranker model in ${dir}: ${reason}; check ${SETTING}`, { cause: error });
  }
}

/** The highest token id of a tokenizer.json: its model's vocabulary (a map, or a list for Unigram) and its added tokens. */
export function highestTokenId(tokenizerJson: unknown): number {
  const { model, added_tokens: added } = (tokenizerJson ?? {}) as { model?: { vocab?: unknown }; added_tokens?: { id?: unknown }[] };
  const vocab = model?.vocab;
  const ids = Array.isArray(vocab) ? [vocab.length - 1] : Object.values(vocab ?? {});
  if (Array.isArray(added)) ids.push(...added.map((token) => token.id));
  return ids.reduce((highest: number, id) => (typeof id === 'number' && id > highest ? id : highest), 0);
}

export class OnnxReranker implements Reranker {
  readonly kind: Reranker['kind'];
  readonly description: string;

  constructor(
    private readonly model: OnnxEncoderModel,
    private readonly encoder: InputEncoder,
    private readonly batchSize: number,
    where: string,
  ) {
    this.kind = model.head.kind;
    this.description =
      `${this.kind} (${model.head.output}): ${where}, at most ${encoder.maxLength} tokens per input, batches of ${batchSize}`;
  }

  async score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]> {
    if (passages.length === 0) return [];
    try {
      return await this.scoreAll(query, passages, signal);
    } catch (error) {
      // The client went away: nothing wrong with the model.
      if (signal?.aborted && error === signal.reason) throw error;
      // A model that cannot score (a tokenizer.json of another model, whose ids overflow the embeddings;
      // a broken graph) is unavailable, answered 503 naming the setting: not a fault of the request.
      const reason = error instanceof Error ? error.message : String(error);
      throw new RerankerUnavailableError(
        `the reranker failed to score: ${reason}; check ${SETTING} (model.onnx and tokenizer.json must come from the same model)`,
        { cause: error },
      );
    }
  }

  close(): Promise<void> {
    return this.model.close();
  }

  /**
   * Runs the highest id the tokenizer can produce through the model once: a tokenizer.json of another
   * model (ids past the embedding table) then stops the server at start, rather than failing the first
   * question that happens to use a rare word.
   */
  async checkVocabulary(highestId: number): Promise<void> {
    try {
      await this.model.run([{ ids: [highestId], typeIds: [0] }]);
    } catch (error) {
      await this.model.close();
      throw new Error(
        `the tokenizer's ids go up to ${highestId}, which the model cannot read (model.onnx and tokenizer.json come from different models?): ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  private async scoreAll(query: string, passages: string[], signal: AbortSignal | undefined): Promise<number[]> {
    if (this.model.head.kind === 'cross-encoder') {
      return this.inBatches(
        passages,
        (batch) => this.encoder.encodePairs(query, batch),
        (output) => relevance(output.data, output.dims),
        signal,
      );
    }
    const embed = (texts: readonly string[]) => texts.map((text) => this.encoder.encode(text));
    const [queryVector] = await this.inBatches([query], embed, (output, batch) => this.embeddings(output, batch), signal);
    const vectors = await this.inBatches(passages, embed, (output, batch) => this.embeddings(output, batch), signal);
    return vectors.map((v) => cosine(queryVector!, v));
  }

  private embeddings(output: ModelOutput, batch: readonly Encoding[]): Float32Array[] {
    if (this.model.head.output === 'sentence_embedding') return rows(output.data, output.dims);
    return meanPool(output.data, output.dims, batch.map((e) => e.ids.length));
  }

  /**
   * Runs the texts in batches of similar length (less padding), then returns
   * the per-item results in the original order. Each batch is tokenised just
   * before it runs (tokenising is synchronous), so the event loop gets a turn
   * between batches instead of waiting for every passage of the request.
   * An aborted signal stops before the next batch (a running batch cannot be interrupted).
   */
  private async inBatches<T>(
    texts: readonly string[],
    encode: (batch: readonly string[]) => Encoding[],
    read: (output: ModelOutput, batch: Encoding[]) => T[],
    signal: AbortSignal | undefined,
  ): Promise<T[]> {
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const results = new Array<T>(texts.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      signal?.throwIfAborted();
      const indices = order.slice(start, start + this.batchSize);
      const batch = encode(indices.map((i) => texts[i]!));
      const values = read(await this.model.run(batch), batch);
      indices.forEach((index, k) => (results[index] = values[k]!));
    }
    return results;
  }
}

/**
 * The longest input the model takes: the smallest limit its files state
 * (tokenizer truncation, tokenizer model_max_length, position embeddings).
 */
function maxLengthOf(tokenizerJson: Json, tokenizerConfig: Json, modelConfig: Json): number {
  const limits = [
    (tokenizerJson.truncation as Json | null)?.max_length,
    tokenizerConfig.model_max_length,
    modelConfig.max_position_embeddings,
  ].filter((n): n is number => Number.isInteger(n) && (n as number) > 0 && (n as number) < 1_000_000); // HF writes 1e30 for "no limit"
  return limits.length > 0 ? Math.min(...limits) : DEFAULT_MAX_LENGTH;
}

type Json = Record<string, unknown>;

async function readJson(file: string): Promise<Json> {
  return JSON.parse(await readFile(file, 'utf8')) as Json;
}

async function readOptionalJson(file: string): Promise<Json | null> {
  return (await isKind(file, 'file')) ? readJson(file) : null;
}

async function isKind(target: string, kind: 'file' | 'directory'): Promise<boolean> {
  const info = await stat(target).catch(() => null);
  return kind === 'file' ? !!info?.isFile() : !!info?.isDirectory();
}

async function firstFile(dir: string, candidates: string[]): Promise<string | null> {
  for (const candidate of candidates) {
    if (await isKind(path.join(dir, candidate), 'file')) return path.join(dir, candidate);
  }
  return null;
}
