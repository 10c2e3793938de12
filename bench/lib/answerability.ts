/**
 * Answerability of the extractive generator on labelled questions: how often
 * it answers the answerable ones (recall) and how many of its answers were to
 * answerable questions (precision). Shared by `npm run bench:answerability`
 * and test/llm/answerability.test.ts.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { QaPipeline } from '../../src/qa/pipeline.js';
import { NoDocumentsError } from '../../src/qa/pipeline.js';
import { ERROR_SEPARATOR } from '../../src/llm/answer.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { readQueries } from '../../src/eval/evaluate.js';
import { parseQrels } from '../../src/eval/metrics.js';

export const SETS_DIR = path.resolve('test', 'fixtures', 'answerability');

export interface LabelledQuestions {
  answerable: string[];
  unanswerable: string[];
}

export interface AnswerabilityResult {
  answerable: number;
  unanswerable: number;
  answeredAnswerable: number;
  answeredUnanswerable: number;
  precision: number;
  recall: number;
  /** The unanswerable questions that got an answer, for inspection. */
  falseAnswers: string[];
}

export async function demoQuestions(): Promise<LabelledQuestions> {
  return JSON.parse(await readFile(path.join(SETS_DIR, 'demo.json'), 'utf8')) as LabelledQuestions;
}

/** SciFact's judged train claims (from ../shared) as answerable, the committed off-topic questions as unanswerable. */
export async function scifactQuestions(scifactDir: string): Promise<LabelledQuestions> {
  const set = JSON.parse(await readFile(path.join(SETS_DIR, 'scifact.json'), 'utf8')) as { answerableCount: number; unanswerable: string[] };
  const queries = await readQueries(path.join(scifactDir, 'queries.jsonl'));
  const judged = parseQrels(await readFile(path.join(scifactDir, 'qrels', 'train.tsv'), 'utf8'));
  const answerable = [...judged.keys()].flatMap((id) => (queries.has(id) ? [queries.get(id)!] : [])).slice(0, set.answerableCount);
  return { answerable, unanswerable: set.unanswerable };
}

async function answers(pipeline: QaPipeline, question: string): Promise<boolean> {
  try {
    const result = await pipeline.answer({ query: question, retrieverK: 100, useReranker: false, rerankerK: 8 }, compileFilterSpec({}));
    return !result.raw_answer.startsWith(ERROR_SEPARATOR);
  } catch (error) {
    if (error instanceof NoDocumentsError) return false;
    throw error;
  }
}

export async function measureAnswerability(pipeline: QaPipeline, questions: LabelledQuestions): Promise<AnswerabilityResult> {
  let answeredAnswerable = 0;
  for (const question of questions.answerable) if (await answers(pipeline, question)) answeredAnswerable++;
  const falseAnswers: string[] = [];
  for (const question of questions.unanswerable) if (await answers(pipeline, question)) falseAnswers.push(question);
  const answered = answeredAnswerable + falseAnswers.length;
  return {
    answerable: questions.answerable.length,
    unanswerable: questions.unanswerable.length,
    answeredAnswerable,
    answeredUnanswerable: falseAnswers.length,
    precision: answered === 0 ? 1 : answeredAnswerable / answered,
    recall: questions.answerable.length === 0 ? 1 : answeredAnswerable / questions.answerable.length,
    falseAnswers,
  };
}

export const RESULTS_FILE = path.resolve('bench', 'results', 'qa.md');
export const RESULTS_SECTION = '## Answerability of the extractive generator (`npm run bench:answerability`)';

/** `markdown` followed by the answerability section of the current qa.md, so `npm run bench:qa` keeps it. */
export async function withAnswerabilitySection(markdown: string): Promise<string> {
  const current = existsSync(RESULTS_FILE) ? await readFile(RESULTS_FILE, 'utf8') : '';
  const at = current.indexOf(RESULTS_SECTION);
  return at < 0 ? markdown : `${markdown.trimEnd()}\n\n${current.slice(at)}`;
}
