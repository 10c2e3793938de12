/**
 * Precision and recall of the extractive generator's "answers" on the labelled
 * answerable/unanswerable questions of test/fixtures/answerability (demo
 * corpus, and SciFact when ../shared has it). Writes its section of
 * bench/results/qa.md (the latency tables of `npm run bench:qa` are kept).
 *
 *   npm run bench:answerability
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, searcherOptionsOf } from '../src/config.js';
import { ingest } from '../src/corpus/ingest.js';
import { ExtractiveGenerator } from '../src/llm/extractive.js';
import { QaPipeline } from '../src/qa/pipeline.js';
import { LiveIndex } from '../src/live/live-index.js';
import { demoQuestions, measureAnswerability, RESULTS_FILE, RESULTS_SECTION, scifactQuestions, type AnswerabilityResult, type LabelledQuestions } from './lib/answerability.js';
import { SCIFACT_DIR } from './lib/synthetic-corpus.js';

const RESULTS = RESULTS_FILE;
const SECTION = RESULTS_SECTION;

async function measure(input: string, format: 'articles-jsonl' | 'beir', questions: LabelledQuestions, scratch: string): Promise<AnswerabilityResult> {
  const config = loadConfig([], {});
  const indexDir = path.join(scratch, format);
  await ingest({ inputs: [input], indexDir, format });
  const index = await LiveIndex.open(indexDir, searcherOptionsOf(config));
  try {
    const generator = new ExtractiveGenerator();
    const pipeline = new QaPipeline(index, () => generator, null, { maxParagraphLength: config.maxParagraphLength });
    return await measureAnswerability(pipeline, questions);
  } finally {
    await index.close();
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

async function main() {
  const scratch = await mkdtemp(path.join(tmpdir(), 'litserve-answerability-'));
  const rows: [string, AnswerabilityResult][] = [];
  try {
    rows.push(['demo', await measure(path.resolve('data', 'demo', 'articles.jsonl'), 'articles-jsonl', await demoQuestions(), scratch)]);
    if (existsSync(path.join(SCIFACT_DIR, 'corpus.jsonl'))) {
      rows.push(['SciFact', await measure(path.join(SCIFACT_DIR, 'corpus.jsonl'), 'beir', await scifactQuestions(SCIFACT_DIR), scratch)]);
    } else process.stderr.write(`bench:answerability: ${SCIFACT_DIR} is absent: no SciFact row\n`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const section = [
    SECTION,
    '',
    `${new Date().toISOString()}. An answer is a raw_answer without \`<bbs_error>\`; precision = answered answerable / all answered, ` +
      'recall = answered answerable / answerable. Questions: test/fixtures/answerability (retriever_k 100, no reranker).',
    '',
    '| corpus | answerable | unanswerable | answered answerable | answered unanswerable | precision | recall |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(([name, r]) => `| ${name} | ${r.answerable} | ${r.unanswerable} | ${r.answeredAnswerable} | ${r.answeredUnanswerable} | ${pct(r.precision)} | ${pct(r.recall)} |`),
    '',
    ...rows.flatMap(([name, r]) => (r.falseAnswers.length ? [`Unanswerable questions answered on ${name}: ${r.falseAnswers.map((q) => `"${q}"`).join(', ')}.`, ''] : [])),
  ].join('\n');
  const previous = existsSync(RESULTS) ? await readFile(RESULTS, 'utf8') : '';
  const kept = previous.includes(SECTION) ? previous.slice(0, previous.indexOf(SECTION)) : `${previous.trimEnd()}\n\n`;
  await writeFile(RESULTS, `${kept}${section}`);
  process.stdout.write(`${section}\n`);
}

await main();
