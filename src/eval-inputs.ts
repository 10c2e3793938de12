/**
 * What `eval` is given, named as the user gave it: by its flag, or by its environment variable. (Its files
 * are checked as the start is decided, in src/command-files.ts.)
 */
import { givenAs, type Config } from './config.js';
import { describeFiles, type IngestReport } from './corpus/ingest.js';

type EvalInputs = Pick<Config, 'corpus' | 'givenIn'>;

/**
 * The failure of a --corpus that gave no article, with what the ingest skipped. Evaluating went on to the
 * scratch index, which was never made, and said "no index in /tmp/litserve-eval-…; build one with …",
 * naming a folder already deleted.
 */
export function corpusYieldedNothing(config: EvalInputs, report: IngestReport): Error {
  return new Error(`the corpus given to ${givenAs(config, 'corpus')} yielded no articles${whyNothingIndexed(report)}: nothing to evaluate`);
}

/** Why a run indexed nothing, in parentheses after a space, or '' when nothing was skipped (an empty corpus). */
export function whyNothingIndexed(report: IngestReport): string {
  const skipped: string[] = [];
  const skippedInputs = report.skippedFiles + report.unreadableFolders;
  if (report.files === 0 && report.unreadableFolders === 0) skipped.push('it holds no file');
  // In the words of ingest's summary, so that the two name one skip alike.
  else if (skippedInputs > 0) skipped.push(describeFiles(report));
  if (report.skipped > 0) skipped.push(`${report.skipped} of the ${report.read} record(s) read skipped`);
  return skipped.length > 0 ? ` (${skipped.join('; ')}${skippedInputs + report.skipped > 0 ? ', each named above' : ''})` : '';
}
