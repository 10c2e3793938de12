/** A generator that holds every answer until released: keeps a request in flight while a test looks at others. */
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import type { Generator } from '../../src/llm/types.js';

export function heldGenerator(): { generator: Generator; release: () => void; started: Promise<void> } {
  const extractive = new ExtractiveGenerator();
  let release!: () => void;
  let markStarted!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const generator: Generator = {
    kind: 'extractive',
    description: 'held',
    async generate(question, contexts, options) {
      markStarted();
      await released;
      return extractive.generate(question, contexts, options);
    },
    close: async () => {},
  };
  return { generator, release, started };
}
