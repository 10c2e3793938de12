/**
 * The one command-line entry: `serve` (default), `ingest` and `eval`.
 *   npm start -- [--port N --host H --index DIR ...]      (see --help)
 *   npm run ingest -- --input PATH [PATH...] --index DIR [--format F] [--stored-compression none|deflate]
 *   npm run eval -- --corpus F --queries F --qrels F [--k1 X --b X --title-weight X]
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, helpText, loadConfig } from './config.js';
import { describeSource, ingest, type IngestReport } from './corpus/ingest.js';
import type { InputFormat } from './corpus/readers/types.js';
import { createProgress } from './progress.js';
import { evaluate, formatEvaluation } from './eval/evaluate.js';
import { MANIFEST_FILE } from './search/manifest.js';
import { COMPRESSIONS, type StoredCompression } from './search/stored/format.js';
import { startServer } from './server.js';

const FORMATS: InputFormat[] = ['articles-jsonl', 'jats', 'pubmed', 'beir'];
const MAX_PRINTED_SKIPS = 50;

async function runIngest(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      input: { type: 'string', multiple: true },
      index: { type: 'string' },
      format: { type: 'string' },
      'max-segment-mb': { type: 'string' },
      'stored-compression': { type: 'string' },
    },
    allowPositionals: true,
  });
  // `--input a b c`: parseArgs keeps only the first value, the rest arrive as positionals.
  const inputs = [...(values.input ?? []), ...positionals];
  if (inputs.length === 0 || !values.index) {
    throw new ConfigError('usage: npm run ingest -- --input PATH [PATH...] --index DIR [--format articles-jsonl|jats|pubmed|beir]');
  }
  if (values.format !== undefined && !FORMATS.includes(values.format as InputFormat)) {
    throw new ConfigError(`--format must be one of ${FORMATS.join(', ')}`);
  }
  const maxSegmentMb = values['max-segment-mb'] === undefined ? undefined : Number(values['max-segment-mb']);
  if (maxSegmentMb !== undefined && !(maxSegmentMb > 0)) throw new ConfigError('--max-segment-mb must be a positive number');
  const storedCompression = values['stored-compression'] as StoredCompression | undefined;
  if (storedCompression !== undefined && !COMPRESSIONS.includes(storedCompression)) {
    throw new ConfigError(`--stored-compression must be one of ${COMPRESSIONS.join(', ')}`);
  }
  const report = await ingestWithProgress(inputs, values.index, values.format as InputFormat | undefined, maxSegmentMb, storedCompression);
  return report.indexed > 0 ? 0 : 1;
}

export async function ingestWithProgress(
  inputs: string[],
  indexDir: string,
  format?: InputFormat,
  maxSegmentMb?: number,
  storedCompression?: StoredCompression,
): Promise<IngestReport> {
  const progress = createProgress('ingest');
  let printed = 0;
  const started = Date.now();
  const report = await ingest({
    inputs,
    indexDir,
    format,
    maxSegmentBytes: maxSegmentMb === undefined ? undefined : maxSegmentMb * 1024 * 1024,
    storedCompression,
    onProgress: (done, total) => progress.update(done, total),
    onSkip: (source, message) => {
      if (printed++ < MAX_PRINTED_SKIPS) process.stderr.write(`skipped ${describeSource(source)}: ${message}\n`);
    },
  });
  progress.stop();
  if (printed > MAX_PRINTED_SKIPS) process.stderr.write(`... and ${printed - MAX_PRINTED_SKIPS} more skipped records\n`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `ingest: ${report.files} file(s)${report.skippedFiles ? ` (${report.skippedFiles} not recognised)` : ''}, read ${report.read}, indexed ${report.indexed} (replaced ${report.replaced}), ` +
      `skipped ${report.skipped} in ${seconds}s -> ${indexDir}${report.indexed === 0 ? ' (nothing indexed; index unchanged)' : ''}\n`,
  );
  return report;
}

async function runEval(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      corpus: { type: 'string' },
      queries: { type: 'string' },
      qrels: { type: 'string' },
      index: { type: 'string' },
      k1: { type: 'string' },
      b: { type: 'string' },
      'title-weight': { type: 'string' },
      threads: { type: 'string' },
    },
  });
  if ((!values.corpus && !values.index) || !values.queries || !values.qrels) {
    throw new ConfigError('usage: npm run eval -- --corpus corpus.jsonl --queries queries.jsonl --qrels qrels.tsv [--k1 X --b X --title-weight X]');
  }
  const defaults = loadConfig([], {});
  const number = (raw: string | undefined, fallback: number, name: string) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new ConfigError(`--${name} must be a non-negative number`);
    return value;
  };
  const options = {
    k1: number(values.k1, defaults.bm25K1, 'k1'),
    b: number(values.b, defaults.bm25B, 'b'),
    titleWeight: number(values['title-weight'], defaults.titleWeight, 'title-weight'),
    threads: number(values.threads, 0, 'threads'),
    filterCacheSize: 16,
  };
  const scratch = values.index ? null : await mkdtemp(path.join(tmpdir(), 'litserve-eval-'));
  try {
    const indexDir = values.index ?? scratch!;
    if (values.corpus) await ingestWithProgress([values.corpus], indexDir);
    const result = await evaluate(indexDir, values.queries, values.qrels, options);
    process.stdout.write(`k1 ${options.k1}  b ${options.b}  title-weight ${options.titleWeight}\n${formatEvaluation(result)}\n`);
    return 0;
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

async function runServe(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm start -- [options]\n\n${helpText()}\n`);
    return 0;
  }
  const config = loadConfig(argv);
  if (config.indexIsDefault && !existsSync(path.join(config.index!, MANIFEST_FILE))) {
    process.stderr.write(`No index at ${config.index}: building it from the demo corpus ${config.demoCorpus} (first start only)\n`);
    await ingestWithProgress([config.demoCorpus], config.index!);
  }
  await startServer(config);
  return -1; // keep running
}

async function main(): Promise<void> {
  const [command = 'serve', ...rest] = process.argv.slice(2);
  const commands: Record<string, (argv: string[]) => Promise<number>> = { serve: runServe, ingest: runIngest, eval: runEval };
  const run = commands[command] ?? (command.startsWith('--') ? () => runServe([command, ...rest]) : undefined);
  if (!run) {
    process.stderr.write(`unknown command "${command}"; commands: ${Object.keys(commands).join(', ')}\n`);
    process.exit(2);
  }
  try {
    const code = await run(rest);
    if (code >= 0) process.exit(code);
  } catch (error) {
    if (error instanceof ConfigError || (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exit(2);
    }
    // Stack traces only on request: most failures here are bad paths or inputs, not bugs.
    process.stderr.write(`error: ${process.env.DEBUG ? ((error as Error).stack ?? error) : ((error as Error).message ?? error)}\n`);
    process.exit(1);
  }
}

await main();
