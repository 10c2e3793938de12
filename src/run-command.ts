/**
 * The commands themselves, once src/start-decision.ts has decided one is to run: serve, ingest, eval.
 * main.ts imports this module only then (dynamically), as does the single executable's entry once it has written
 * the files it carries, so what the arguments alone decide does not wait for the server, ingest and eval code.
 */
import { isUtf8 } from 'node:buffer';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, givenAs, searcherOptionsOf, type Command, type Config } from './config.js';
import { describeFiles, describeSource, ingest, whyNothingIndexed, type IngestOptions, type IngestReport } from './corpus/ingest.js';
import type { RecordSource } from './corpus/readers/types.js';
import { createProgress, type Progress } from './progress.js';
import { keepRunningWhenOutputCloses } from './closed-output.js';
import { endStartWatch } from './ingest-start-interruption.js';
import { watchInterruption } from './index-write-interruption.js';
import { demoCorpusPath } from './demo-corpus.js';
import { quotedId } from './corpus/quoted-id.js';
import { describeMismatch, evaluate, formatEvaluation, whyNothingEvaluated } from './eval/evaluate.js';
import { corpusYieldedNothing } from './eval-inputs.js';
import { withScratchDir } from './eval/scratch-dir.js';
import { IndexMissingError, MANIFEST_FILE, isUnreadableIndex } from './search/manifest.js';
import { mergeAll } from './search/merge.js';
import type { StoredCompression } from './search/stored/format.js';
import { startServer } from './server.js';
import { lockDataOf } from './data-lock.js';
import { connectionUrlProblem } from './platform/store/connection-config.js';
import { printableStoreUrl } from './platform/store/printable-url.js';
import { loadAuthFile } from './platform/auth-file.js';
import { explainIndexMissing } from './start-decision.js';
import { refuseOverlappingBlobDir } from './blob-dir-overlap.js';

const MAX_PRINTED_SKIPS = 50;

/**
 * Says on stderr what a run skips as it skips it, the first MAX_PRINTED_SKIPS only; `end` then counts the others,
 * named `unprinted` ("skipped lines").
 */
function skipPrinter(unprinted: string): { onSkip: (source: RecordSource, message: string) => void; end: () => void } {
  let skips = 0;
  return {
    onSkip: (source, message) => {
      if (skips++ < MAX_PRINTED_SKIPS) process.stderr.write(`skipped ${describeSource(source)}: ${message}\n`);
    },
    end: () => {
      if (skips > MAX_PRINTED_SKIPS) process.stderr.write(`... and ${skips - MAX_PRINTED_SKIPS} more ${unprinted}\n`);
    },
  };
}

async function runIngest(config: Config): Promise<number> {
  // The start decision has checked the --delete-file files and that an index to delete from or merge exists (src/command-files.ts).
  const deleteIds = [...config.delete, ...(await readIdFiles(config.deleteFile))];
  // A signal stops the run where nothing is half-written; end() then says so and ends the process as the signal would.
  const interruption = watchInterruption('ingest', config.index);
  endStartWatch();
  try {
    let ok = true;
    if (config.input.length > 0 || config.delete.length > 0 || config.deleteFile.length > 0) {
      const report = await ingestWithProgress(config.input, config.index, {
        format: config.format ?? undefined,
        maxSegmentMb: config.maxSegmentMb ?? undefined,
        idPrefix: config.idPrefix ?? undefined,
        deleteIds,
        mergeFactor: config.mergeFactor,
        storedCompression: config.storedCompression,
        quiet: config.quiet,
        signal: interruption.signal,
      });
      // A run with inputs fails when they gave nothing: no record indexed and no deletion (a PubMed update file
      // may hold only DeleteCitation elements). Deleting ids already gone is not a failure.
      ok = config.input.length === 0 || report.indexed > 0 || report.deletionsInInputs > 0;
    }
    if (config.merge && !interruption.signal.aborted) await mergeWithReport(config.index, config.storedCompression, config.quiet, interruption.signal);
    return ok ? 0 : 1;
  } finally {
    interruption.end();
  }
}

/** Ids from files of one id per line (blank lines and surrounding spaces ignored). */
async function readIdFiles(files: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const file of files) {
    // Found readable as the start was decided; named, should it have gone since.
    const bytes = await readFile(file).catch((error: Error) => {
      throw new Error(`--delete-file ${file}: ${error.message}`);
    });
    // A binary file given by mistake would be read as ids (every line echoed, "not found", exit 0).
    if (!isUtf8(bytes) || bytes.includes(0)) throw new Error(`--delete-file ${file}: is not a text file of article ids (one per line, UTF-8)`);
    for (const line of bytes.toString('utf8').split('\n')) if (line.trim()) ids.push(line.trim());
  }
  return ids;
}

/** A PostgreSQL URL its client cannot read stops the start here (exit 2), not after the demo index is built as "Invalid URL". */
function refuseUnreadableStoreUrl(config: Config): void {
  if (config.platformStore === 'lmdb') return;
  const problem = connectionUrlProblem(config.platformStore);
  if (problem === null) return;
  throw new ConfigError(
    `--platform-store / PLATFORM_STORE is not a URL PostgreSQL's client can read (${problem}): check its host, port and %-escapes, got "${printableStoreUrl(config.platformStore)}"`,
  );
}

/**
 * An id as the command prints it: as it is when every character shows, else quoted with the hidden ones
 * written as code points (`"demo-003\u{200b}"`), so an id holding a zero-width or control character, white
 * space or a comma does not look like another one in the list.
 */
function shownId(id: string): string {
  return /^[^\p{C}\p{Z},"]+$/u.test(id) ? id : quotedId(id);
}

async function mergeWithReport(indexDir: string, storedCompression: StoredCompression, quiet: boolean, signal: AbortSignal): Promise<void> {
  const started = Date.now();
  const progress = createProgress('merge', 'steps', { quiet });
  const merge = await mergeAll(indexDir, { storedCompression, signal, onProgress: (done, total) => progress.update(done, total) }).finally(() => progress.stop());
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    merge
      ? `merge: ${merge.merged.length} segment(s) -> ${merge.into ?? 'none (every article was deleted)'}, ${merge.articles} articles, ${merge.dropped} deleted dropped in ${seconds}s (generation ${merge.generation})\n`
      : 'merge: nothing to merge (the index has at most one segment, and no deletions); read whole, every checksum matched\n',
  );
}

async function ingestWithProgress(
  inputs: string[],
  indexDir: string,
  options: Pick<IngestOptions, 'format' | 'idPrefix' | 'deleteIds' | 'mergeFactor' | 'storedCompression' | 'signal' | 'indexNamed'> & { maxSegmentMb?: number; quiet?: boolean } = {},
): Promise<IngestReport> {
  const { maxSegmentMb, quiet, ...rest } = options;
  const progress = createProgress('ingest', 'bytes', { quiet });
  let writeProgress: Progress | undefined;
  let mergeProgress: Progress | undefined;
  const phaseStep = (label: string, current: Progress | undefined, done: number, total: number): Progress => {
    let bar = current;
    if (bar === undefined || done === 0) {
      for (const other of [progress, writeProgress, mergeProgress]) other?.stop();
      bar = createProgress(label, 'steps', { quiet });
    }
    bar.update(done, total);
    if (done === total) bar.stop();
    return bar;
  };
  const skips = skipPrinter('skipped files or records');
  const started = Date.now();
  const report = await ingest({
    inputs,
    indexDir,
    ...rest,
    maxSegmentBytes: maxSegmentMb === undefined ? undefined : maxSegmentMb * 1024 * 1024,
    onProgress: (done, total) => progress.update(done, total),
    // A bar of its own for each segment written and each merge (each starts at 0), made at its first
    // step: its clock (silent under 10 s off a terminal) starts there. The reading's bar stops meanwhile
    // (a segment may be written in the middle of the reading) and starts again at its next step.
    onWriteProgress: (done, total) => (writeProgress = phaseStep('write', writeProgress, done, total)),
    onMergeProgress: (done, total) => (mergeProgress = phaseStep('merge', mergeProgress, done, total)),
    onSkip: skips.onSkip,
    // Bounded by the run itself (a repeated id is told MAX_REPEATS_TOLD times at most, then counted).
    onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
  });
  progress.stop();
  writeProgress?.stop();
  mergeProgress?.stop();
  skips.end();
  if (report.notFound.length > 0) {
    const shown = report.notFound.slice(0, MAX_PRINTED_SKIPS).map(shownId).join(', ');
    process.stderr.write(`not deleted (no live article has the id): ${shown}${report.notFound.length > MAX_PRINTED_SKIPS ? ', ...' : ''}\n`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const unchanged = report.indexed === 0 && report.deleted === 0;
  process.stderr.write(
    `ingest: ${describeFiles(report)}; records: read ${report.read}, indexed ${report.indexed} (replaced ${report.replaced}), ` +
      `skipped ${report.skipped}; added ${report.added}, replaced ${report.replaced}` +
      `${report.repeatedIds ? ` (${report.repeatedIds} id(s) read more than once in this run)` : ''}, deleted ${report.deleted}` +
      `${report.notFound.length ? ` (${report.notFound.length} not found)` : ''} in ${seconds}s -> ${indexDir}${unchanged ? ' (nothing indexed; index unchanged)' : ''}\n`,
  );
  if (report.mergeSkipped !== null) process.stderr.write(`merge policy: left to a later run (${report.mergeSkipped})\n`);
  for (const merge of report.merges) {
    process.stderr.write(`merge policy: ${merge.merged.length} segments -> ${merge.into ?? 'none'} (${merge.articles} articles, ${merge.dropped} deleted dropped)\n`);
  }
  return report;
}

async function runEval(config: Config): Promise<number> {
  // Its files were found readable as the start was decided (src/command-files.ts), before the corpus is indexed.
  const options = searcherOptionsOf(config);
  const evaluateIndex = async (indexDir: string, indexName?: string): Promise<number> => {
    const skips = skipPrinter('skipped lines');
    const result = await evaluate(indexDir, config.queries!, config.qrels!, options, { onSkip: skips.onSkip, indexName });
    skips.end();
    const { skippedLines, judgedDocuments } = result;
    if (skippedLines.queries + skippedLines.qrels > 0) process.stderr.write(`eval: skipped ${skippedLines.queries} line(s) of ${config.queries} and ${skippedLines.qrels} of ${config.qrels}\n`);
    if (result.queries === 0) {
      process.stderr.write(`error: ${whyNothingEvaluated(result, config.queries!, config.qrels!)}\n`);
      return 1;
    }
    if (judgedDocuments.inIndex < judgedDocuments.judged) {
      process.stderr.write(
        `warning: only ${judgedDocuments.inIndex} of the ${judgedDocuments.judged} document ids judged in ${config.qrels} are in the index ` +
          `${describeMismatch(judgedDocuments)}: the metrics count the others as never found\n`,
      );
    }
    process.stdout.write(`k1 ${options.k1}  b ${options.b}  title-weight ${options.titleWeight}\n${formatEvaluation(result)}\n`);
    return 0;
  };
  if (!config.corpus) return evaluateIndex(config.index);
  return withScratchDir('litserve-eval-', async (scratch, signal) => {
    const report = await ingestWithProgress([config.corpus!], scratch, { quiet: config.quiet, signal });
    if (report.indexed === 0) throw corpusYieldedNothing(config, report);
    return evaluateIndex(scratch, `the index built from ${givenAs(config, 'corpus')}`);
  });
}

/** Serves until a stopping signal: resolves with no exit code, as the server's shutdown ends the process. */
async function runServe(config: Config): Promise<null> {
  refuseUnreadableStoreUrl(config);
  refuseOverlappingBlobDir(config);
  const releaseData = await lockDataOf(config);
  if (config.indexIsDefault && !existsSync(path.join(config.index, MANIFEST_FILE))) {
    // A broken auth file is refused before the demo index is built (a minute on a small machine), not after.
    if (config.authFile) loadAuthFile(config.authFile);
    const demoCorpus = demoCorpusPath(config.demoCorpus);
    process.stderr.write(`No index at ${config.index}: building it from the demo corpus ${demoCorpus} (first start only)\n`);
    // A signal stops the build as it stops ingest, and says so; with nothing published, the next start builds again.
    // (It had killed the process where it was, without a word, leaving the write lock and any segment written.)
    const interruption = watchInterruption('serve', config.index);
    try {
      const report = await ingestWithProgress([demoCorpus], config.index, { quiet: config.quiet, signal: interruption.signal, indexNamed: 'the default index (under --data)' });
      // Said here: the start would otherwise stop at the missing index, without naming the corpus.
      if (report.indexed === 0) {
        throw new Error(`the demo corpus ${demoCorpus} (--demo-corpus / DEMO_CORPUS) yielded no articles${whyNothingIndexed(report)}: nothing to serve; give one ingest can read, or --index an index built with npm run ingest`);
      }
    } finally {
      interruption.end();
    }
  }
  try {
    await startServer(config, releaseData);
  } catch (error) {
    // The default index is most often the demo corpus's, built by a first start (of an older version, when outdated):
    // damaged or outdated, the way out is to let the next start build it again.
    if (!config.indexIsDefault || !isUnreadableIndex(error)) throw error;
    throw new Error(`${error instanceof Error ? error.message : String(error)}; if it holds only the demo corpus, remove ${config.index} and start again: it is rebuilt`, { cause: error });
  }
  return null;
}

/** Each command's run: it resolves with the process's exit code, or null when the process keeps running (serve). */
const COMMAND_RUNS: Record<Command, (config: Config) => Promise<number | null>> = { serve: runServe, ingest: runIngest, eval: runEval };

/** Runs the command on the settings its start was decided with, and ends the process with its code (serve keeps it running). */
export async function runCommand(command: Command, config: Config, inExecutable: boolean): Promise<void> {
  keepRunningWhenOutputCloses();
  try {
    const code = await COMMAND_RUNS[command](config);
    if (code !== null) process.exit(code);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof IndexMissingError) {
      process.stderr.write(`error: ${explainIndexMissing(error, inExecutable)}\n`);
      process.exit(1);
    }
    // Stack traces only on request: most failures here are bad paths or inputs, not bugs. A throwable that is no Error
    // is shown as it converts to text.
    const shown = error instanceof Error ? (process.env.DEBUG ? (error.stack ?? String(error)) : error.message) : String(error);
    process.stderr.write(`error: ${shown}\n`);
    process.exit(1);
  }
}
