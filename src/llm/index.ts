/**
 * Picks the answer generator from the configuration: the GGUF model named by
 * --llm-model, or the extractive generator when none is configured.
 */
import type { Config } from '../config.js';
import { ExtractiveGenerator } from './extractive.js';
import { loadLlamaGenerator } from './llama.js';
import { perCallerPlaces } from './queue.js';
import type { Generator, Logger } from './types.js';

type GeneratorConfig = Pick<
  Config,
  'llmModel' | 'llmGpu' | 'llmThreads' | 'llmContextSize' | 'llmMaxTokens' | 'llmTemperature' | 'llmQueueSize' | 'llmQueuePerClient'
>;

export async function createGenerator(config: GeneratorConfig, logger?: Logger): Promise<Generator> {
  const queuePerClient = perCallerPlaces(config.llmQueuePerClient, config.llmQueueSize);
  if (config.llmModel === null) return new ExtractiveGenerator({ queueSize: config.llmQueueSize, queuePerClient });
  const generator = await loadLlamaGenerator({
    modelPath: config.llmModel,
    gpu: config.llmGpu,
    contextSize: config.llmContextSize,
    maxTokens: config.llmMaxTokens,
    temperature: config.llmTemperature,
    queueSize: config.llmQueueSize,
    queuePerClient,
    threads: config.llmThreads,
    logger,
  });
  logger?.info({ generator: generator.description }, 'language model loaded');
  return generator;
}

export { ExtractiveGenerator } from './extractive.js';
export { LlamaGenerator, loadLlamaGenerator } from './llama.js';
export * from './types.js';
