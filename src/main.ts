/**
 * The one command-line entry: `serve` (default), `ingest` and `eval`.
 *   npm start -- [--port N --host H --index DIR ...]      (see --help)
 *   npm run ingest -- --input PATH [PATH...] --index DIR [--format F]
 *   npm run eval -- --corpus F --queries F --qrels F [--bm25-k1 X --bm25-b X --title-weight X]
 * Every command's flags are rows of the settings table (src/config.ts); `--help` lists them.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { COMMANDS, ConfigError, helpText, loadConfig, searcherOptionsOf, type Command } from './config.js';
import { describeSource, ingest, type IngestReport } from './corpus/ingest.js';
import type { InputFormat } from './corpus/readers/types.js';
import { createProgress } from './progress.js';
import { evaluate, formatEvaluation } from './eval/evaluate.js';
import { MANIFEST_FILE } from './search/manifest.js';
import { startServer } from './server.js';

const MAX_PRINTED_SKIPS = 50;

async function runIngest(argv: string[]): Promise<number> {
  const config = loadConfig(argv, process.env, 'ingest');
  const report = await ingestWithProgress(config.input, config.index!, {
    format: config.format ?? undefined,
    maxSegmentMb: config.maxSegmentMb ?? undefined,
    idPrefix: config.idPrefix ?? undefined,
  });
  return report.indexed > 0 ? 0 : 1;
}

export async function ingestWithProgress(
  inputs: string[],
  indexDir: string,
  { format, maxSegmentMb, idPrefix }: { format?: InputFormat; maxSegmentMb?: number; idPrefix?: string } = {},
): Promise<IngestReport> {
  const progress = createProgress('ingest');
  let printed = 0;
  const started = Date.now();
  const report = await ingest({
    inputs,
    indexDir,
    format,
    idPrefix,
    maxSegmentBytes: maxSegmentMb === undefined ? undefined : maxSegmentMb * 1024 * 1024,
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
  const config = loadConfig(argv, process.env, 'eval');
  if (!config.corpus && config.indexIsDefault) throw new ConfigError('eval needs --corpus or --index; see --help');
  const options = searcherOptionsOf(config);
  const scratch = config.corpus ? await mkdtemp(path.join(tmpdir(), 'litserve-eval-')) : null;
  try {
    const indexDir = scratch ?? config.index!;
    if (config.corpus) await ingestWithProgress([config.corpus], indexDir);
    const result = await evaluate(indexDir, config.queries!, config.qrels!, options);
    process.stdout.write(`k1 ${options.k1}  b ${options.b}  title-weight ${options.titleWeight}\n${formatEvaluation(result)}\n`);
    return 0;
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

const USAGE: Record<Command, string> = {
  serve: 'npm start -- [options]',
  ingest: 'npm run ingest -- --input PATH [PATH...] --index DIR [options]',
  eval: 'npm run eval -- (--corpus corpus.jsonl | --index DIR) --queries queries.jsonl --qrels qrels.tsv [options]',
};

async function runServe(argv: string[]): Promise<number> {
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
  const helpOf = (COMMANDS as readonly string[]).includes(command) ? (command as Command) : 'serve';
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(`usage: ${USAGE[helpOf]}\n\n${helpText(helpOf)}\n`);
    process.exit(0);
  }
  try {
    const code = await run(rest);
    if (code >= 0) process.exit(code);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exit(2);
    }
    // Stack traces only on request: most failures here are bad paths or inputs, not bugs.
    process.stderr.write(`error: ${process.env.DEBUG ? ((error as Error).stack ?? error) : ((error as Error).message ?? error)}\n`);
    process.exit(1);
  }
}

await main();
