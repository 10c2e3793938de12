/**
 * Per-stage latency of the QA pipeline (retrieve, rerank, generate, metadata;
 * p50 / p99) for retriever_k 100 and 500 and reranker_k 8, with the extractive
 * generator and GGUF generators (the tiny random GGUF of
 * scripts/make-tiny-gguf.ts, and stories260K when ../shared has it), with and
 * without the reranker trained by `npm run models:reranker` on the same index.
 * Also reranker pairs/second and generation tokens/second.
 *
 * Corpora: the demo corpus, and SciFact when ../shared has it, each ingested
 * into a temporary index. Questions: the demo articles' titles; SciFact's
 * judged train claims.
 *
 *   npm run bench:qa [-- --questions N]     (default 12 per configuration, after 3 warm-up questions)
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig, searcherOptionsOf } from '../src/config.js';
import { ingest } from '../src/corpus/ingest.js';
import { LiveIndex } from '../src/live/live-index.js';
import { readQueries } from '../src/eval/evaluate.js';
import { parseQrels } from '../src/eval/metrics.js';
import { ExtractiveGenerator, loadLlamaGenerator, type Generator, type LlamaGenerator } from '../src/llm/index.js';
import { QaPipeline, type StageTimings } from '../src/qa/pipeline.js';
import { loadOnnxReranker } from '../src/rerank/index.js';
import type { Reranker } from '../src/rerank/types.js';
import { compileFilterSpec } from '../src/search/query/filter-spec.js';
import type { Searcher } from '../src/search/searcher.js';
import { writeTinyGguf } from '../scripts/make-tiny-gguf.js';
import { DEFAULT_TRAIN_OPTIONS, trainReranker } from '../scripts/train-reranker.js';
import { machine, sourceCommit, summarize, writeResults } from './lib/stats.js';
import { withAnswerabilitySection } from './lib/answerability.js';
import { SCIFACT_DIR } from './lib/synthetic-corpus.js';

const RETRIEVER_KS = [100, 500];
const RERANKER_K = 8;
const WARM_UP = 3;
// Enough to time decoding; the tiny models' answers are nonsense anyway.
const GGUF_MAX_TOKENS = 128;
const STORIES = path.resolve('..', 'shared', 'models', 'stories260K', 'stories260K.gguf');
const STAGES = ['retrieveMs', 'rerankMs', 'generateMs', 'metadataMs'] as const;
const say = (message: string) => process.stderr.write(`bench:qa: ${message}\n`);

interface Corpus {
  name: string;
  input: string;
  format: 'articles-jsonl' | 'beir';
  questions: () => Promise<string[]>;
}

const CORPORA: Corpus[] = [
  {
    name: 'demo',
    input: path.resolve('data', 'demo', 'articles.jsonl'),
    format: 'articles-jsonl',
    questions: async () =>
      (await readFile(path.resolve('data', 'demo', 'articles.jsonl'), 'utf8'))
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => (JSON.parse(line) as { title: string }).title),
  },
  {
    name: 'scifact',
    input: path.join(SCIFACT_DIR, 'corpus.jsonl'),
    format: 'beir',
    questions: async () => {
      const queries = await readQueries(path.join(SCIFACT_DIR, 'queries.jsonl'));
      const judged = parseQrels(await readFile(path.join(SCIFACT_DIR, 'qrels', 'train.tsv'), 'utf8'));
      return [...judged.keys()].flatMap((id) => (queries.has(id) ? [queries.get(id)!] : []));
    },
  },
];

interface Row {
  corpus: string;
  generator: string;
  reranker: string;
  retrieverK: number;
  questions: number;
  stages: Record<(typeof STAGES)[number] | 'totalMs', { p50: number; p99: number; mean: number; n: number }>;
  /** Mean paragraphs retrieved, i.e. scored by the reranker when there is one. */
  retrieved: number;
  rerankPairsPerSecond: number | null;
  promptTokensPerSecond: number | null;
  generatedTokensPerSecond: number | null;
}

/** Runs the questions through one pipeline configuration and summarises the stage timings. */
async function measure(
  pipeline: QaPipeline,
  searcher: Searcher,
  questions: string[],
  retrieverK: number,
  useReranker: boolean,
  generator: Generator,
): Promise<Omit<Row, 'corpus' | 'generator' | 'reranker' | 'retrieverK'>> {
  const filters = compileFilterSpec({});
  const request = (query: string) => ({ query, retrieverK, useReranker, rerankerK: RERANKER_K });
  for (const query of questions.slice(0, WARM_UP)) await pipeline.answer(request(query), filters);
  const stats = (generator as Partial<LlamaGenerator>).stats;
  const before = stats && { ...stats };
  const timings: StageTimings[] = [];
  let retrieved = 0;
  for (const query of questions.slice(WARM_UP)) {
    retrieved += (await searcher.search(query, retrieverK, filters)).length;
    timings.push((await pipeline.answer(request(query), filters)).timings);
  }
  const summary = Object.fromEntries(STAGES.map((stage) => [stage, summarize(timings.map((t) => t[stage]))])) as Row['stages'];
  summary.totalMs = summarize(timings.map((t) => STAGES.reduce((sum, stage) => sum + t[stage], 0)));
  const rerankSeconds = timings.reduce((sum, t) => sum + t.rerankMs, 0) / 1000;
  const rate = (count: number, ms: number) => (ms > 0 ? (count * 1000) / ms : null);
  return {
    questions: timings.length,
    stages: summary,
    retrieved: retrieved / timings.length,
    rerankPairsPerSecond: useReranker ? retrieved / rerankSeconds : null,
    promptTokensPerSecond: stats && before ? rate(stats.promptTokens - before.promptTokens, stats.promptMs - before.promptMs) : null,
    // Each answer's first token is timed with the prompt, as LlamaGenerator's own log counts it.
    generatedTokensPerSecond:
      stats && before
        ? rate(stats.generatedTokens - before.generatedTokens - (stats.generations - before.generations), stats.decodeMs - before.decodeMs)
        : null,
  };
}

async function loadGenerators(scratch: string): Promise<{ name: string; generator: Generator }[]> {
  const config = loadConfig([], {});
  const gguf = (modelPath: string) =>
    loadLlamaGenerator({
      modelPath,
      contextSize: config.llmContextSize,
      maxTokens: GGUF_MAX_TOKENS,
      // Room for the JSON around the answer: an answer cut at the token limit is an error (code 6), not a timing.
      answerMaxChars: GGUF_MAX_TOKENS / 2,
      temperature: 0,
      queueSize: config.llmQueueSize,
      threads: config.llmThreads,
    });
  const tiny = path.join(scratch, 'tiny.gguf');
  await writeTinyGguf(tiny, { seed: 1 });
  const generators: { name: string; generator: Generator }[] = [
    { name: 'extractive', generator: new ExtractiveGenerator() },
    { name: 'tiny GGUF (random weights)', generator: await gguf(tiny) },
  ];
  if (existsSync(STORIES)) generators.push({ name: 'stories260K GGUF', generator: await gguf(STORIES) });
  else say(`${STORIES} is absent: no stories260K rows`);
  return generators;
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
const perSecond = (x: number | null) => (x === null ? '-' : Math.round(x).toString());

/** The 1-minute load averages at the start and end of the run: the machine is shared, and latency follows how busy it was. */
interface Load {
  atStart: number;
  atEnd: number;
}

function markdown(rows: Row[], trained: { corpus: string; seconds: number; tokens: number; paragraphs: number }[], questions: number, load: Load): string {
  const stageCells = (r: Row) => [...STAGES, 'totalMs' as const].map((s) => `${ms(r.stages[s].p50)} / ${ms(r.stages[s].p99)}`).join(' | ');
  return [
    '# QA pipeline latency (`npm run bench:qa`)',
    '',
    `${new Date().toISOString()}, commit ${sourceCommit()}, ${machine().cores} cores (1-minute load average ${load.atStart.toFixed(1)} at the start, ` +
      `${load.atEnd.toFixed(1)} at the end), Node ${process.version}. ${questions} questions per row after ${WARM_UP} warm-up questions, ` +
      `one at a time; reranker_k ${RERANKER_K}; GGUF generators on the CPU with ${loadConfig([], {}).llmThreads} thread(s), ` +
      `at most ${GGUF_MAX_TOKENS} generated tokens, temperature 0. Milliseconds, p50 / p99 (with ${questions} questions p99 is about the slowest).`,
    '',
    'The reranker is the model `npm run models:reranker` trains on the same index, with its default options (whether it helps ranking ' +
      'is measured in [reranker.md](reranker.md); these rows show its cost). Questions: the demo articles\' titles; SciFact\'s judged ' +
      'train claims. The small GGUF models\' context windows hold only the first few of the 8 contexts (the rest are dropped from the prompt).',
    '',
    '| corpus | generator | reranker | retriever_k | paragraphs retrieved | retrieve | rerank | generate | metadata | total | rerank pairs/s | prompt tokens/s | generated tokens/s |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.corpus} | ${r.generator} | ${r.reranker} | ${r.retrieverK} | ${Math.round(r.retrieved)} | ${stageCells(r)} | ` +
        `${perSecond(r.rerankPairsPerSecond)} | ${perSecond(r.promptTokensPerSecond)} | ${perSecond(r.generatedTokensPerSecond)} |`,
    ),
    '',
    'Reranker training (`trainReranker`, default options) on each benchmark index:',
    '',
    '| index | paragraphs | tokens | seconds |',
    '| --- | --- | --- | --- |',
    ...trained.map((t) => `| ${t.corpus} | ${t.paragraphs} | ${t.tokens} | ${t.seconds.toFixed(1)} |`),
    '',
  ].join('\n');
}

async function main() {
  const { values } = parseArgs({ options: { questions: { type: 'string', default: '12' } } });
  const questionCount = Number(values.questions);
  if (!Number.isInteger(questionCount) || questionCount < 1) throw new Error('--questions must be a positive integer');
  const scratch = await mkdtemp(path.join(tmpdir(), 'litserve-bench-qa-'));
  const loadAtStart = loadavg()[0]!;
  const config = loadConfig([], {});
  const rows: Row[] = [];
  const trained: { corpus: string; seconds: number; tokens: number; paragraphs: number }[] = [];
  const generators = await loadGenerators(scratch);
  try {
    for (const corpus of CORPORA) {
      if (!existsSync(corpus.input)) {
        say(`${corpus.input} is absent: no ${corpus.name} rows`);
        continue;
      }
      const indexDir = path.join(scratch, `${corpus.name}-index`);
      await ingest({ inputs: [corpus.input], indexDir, format: corpus.format });
      const started = performance.now();
      const model = await trainReranker(indexDir, path.join(scratch, `${corpus.name}-reranker`), DEFAULT_TRAIN_OPTIONS);
      trained.push({ corpus: corpus.name, seconds: (performance.now() - started) / 1000, tokens: model.vocab.length, paragraphs: model.paragraphs });
      const reranker = await loadOnnxReranker(path.join(scratch, `${corpus.name}-reranker`), {
        threads: config.rerankerThreads,
        batchSize: config.rerankerBatchSize,
      });
      const index = await LiveIndex.open(indexDir, searcherOptionsOf(config));
      const { searcher } = index.current;
      const questions = (await corpus.questions()).slice(0, WARM_UP + questionCount);
      try {
        for (const { name, generator } of generators) {
          for (const [rerankerName, rerankerModel] of [['none', null], ['trained (LSA)', reranker]] as [string, Reranker | null][]) {
            const pipeline = new QaPipeline(index, () => generator, rerankerModel, { maxParagraphLength: config.maxParagraphLength });
            for (const retrieverK of RETRIEVER_KS) {
              const result = await measure(pipeline, searcher, questions, retrieverK, rerankerModel !== null, generator);
              rows.push({ corpus: corpus.name, generator: name, reranker: rerankerName, retrieverK, ...result });
              say(`${corpus.name}, ${name}, reranker ${rerankerName}, retriever_k ${retrieverK}: total p50 ${ms(result.stages.totalMs.p50)} ms`);
            }
          }
        }
      } finally {
        await reranker.close();
        await index.close();
      }
    }
    const load: Load = { atStart: loadAtStart, atEnd: loadavg()[0]! };
    const results = { machine: machine(), load, rerankerK: RERANKER_K, ggufMaxTokens: GGUF_MAX_TOKENS, warmUp: WARM_UP, trained, rows };
    await writeResults('qa', results, await withAnswerabilitySection(markdown(rows, trained, questionCount, load)));
  } finally {
    for (const { generator } of generators) await generator.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

await main();
