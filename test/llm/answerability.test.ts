/**
 * The extractive generator does not cite irrelevant text (issue 12 item 3):
 * off-topic questions get <bbs_error> with no sources, on-topic ones keep
 * their answers. Labelled questions: test/fixtures/answerability.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ingest } from '../../src/corpus/ingest.js';
import { ExtractiveGenerator } from '../../src/llm/extractive.js';
import { QaPipeline } from '../../src/qa/pipeline.js';
import { LiveIndex } from '../../src/live/live-index.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { demoQuestions, measureAnswerability, scifactQuestions } from '../../bench/lib/answerability.js';
import { tempDir } from '../search/helpers.js';

const SCIFACT = path.resolve('..', 'shared', 'data', 'scifact');
if (!existsSync(path.join(SCIFACT, 'corpus.jsonl'))) console.warn(`skipping the SciFact answerability test: ${SCIFACT} not found`);

async function pipelineOver(input: string, format: 'articles-jsonl' | 'beir', indexDir: string) {
  await ingest({ inputs: [input], indexDir, format });
  const index = await LiveIndex.open(indexDir, { threads: 0, k1: 0.6, b: 0.75, titleWeight: 0.25, filterCacheSize: 4 });
  const generator = new ExtractiveGenerator();
  return { index, pipeline: new QaPipeline(index, () => generator, null, { maxParagraphLength: 100_000 }) };
}

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(() => cleanup());

const ask = (pipeline: QaPipeline, query: string) => pipeline.answer({ query, retrieverK: 100, useReranker: false, rerankerK: 8 }, compileFilterSpec({}));

describe('answerability of the extractive generator', () => {
  it('on the demo corpus: refuses every off-topic question, answers the README examples', async () => {
    const { index, pipeline } = await pipelineOver(path.resolve('data', 'demo', 'articles.jsonl'), 'articles-jsonl', path.join(dir, 'demo'));
    try {
      const offTopic = await ask(pipeline, 'What is the meaning of life?');
      expect(offTopic.raw_answer.startsWith('<bbs_error>')).toBe(true);
      expect(offTopic.metadata).toEqual([]);
      const onTopic = await ask(pipeline, 'What do place cells encode?');
      expect(onTopic.raw_answer.startsWith('<bbs_error>')).toBe(false);
      expect(onTopic.metadata.length).toBeGreaterThan(0);

      const result = await measureAnswerability(pipeline, await demoQuestions());
      expect(result.falseAnswers).toEqual([]);
      // Measured 19 of 20 (bench/results/qa.md); a change that loses answers shows here.
      expect(result.answeredAnswerable).toBeGreaterThanOrEqual(18);
    } finally {
      await index.close();
    }
  }, 60_000);

  it.skipIf(!existsSync(path.join(SCIFACT, 'corpus.jsonl')))('on SciFact: "What is the capital of France?" is not answered; most claims are', async () => {
    const { index, pipeline } = await pipelineOver(path.join(SCIFACT, 'corpus.jsonl'), 'beir', path.join(dir, 'scifact'));
    try {
      const offTopic = await ask(pipeline, 'What is the capital of France?');
      expect(offTopic.raw_answer.startsWith('<bbs_error>')).toBe(true);
      expect(offTopic.metadata).toEqual([]);
      const result = await measureAnswerability(pipeline, await scifactQuestions(SCIFACT));
      // Measured: precision 93.9%, recall 77% (bench/results/qa.md).
      expect(result.precision).toBeGreaterThanOrEqual(0.9);
      expect(result.recall).toBeGreaterThanOrEqual(0.75);
    } finally {
      await index.close();
    }
  }, 180_000);
});
