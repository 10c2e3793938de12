/**
 * What `eval` is given, checked and named as the user gave it: by its flag, or by its environment variable
 * (a node error's "ENOENT: no such file or directory, open '…'" did not say which of the files it was).
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { givenAs, type Config } from './config.js';
import { describeFiles, type IngestReport } from './corpus/ingest.js';

type EvalInputs = Pick<Config, 'corpus' | 'queries' | 'qrels' | 'givenIn'>;

/** Checked before the corpus is indexed, which takes minutes for a large one, so that a mistyped file name fails at once. */
export async function checkEvalFiles(config: EvalInputs): Promise<void> {
  const problems: string[] = [];
  for (const key of ['queries', 'qrels'] as const) {
    const problem = await problemOf(config[key]!, 'file');
    if (problem !== null) problems.push(`${givenAs(config, key)}: ${problem}`);
  }
  if (config.corpus !== null) {
    const problem = await problemOf(config.corpus, 'file or folder');
    if (problem !== null) problems.push(`${givenAs(config, 'corpus')}: ${problem}`);
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
}

async function problemOf(file: string, wanted: 'file' | 'file or folder'): Promise<string | null> {
  try {
    if (wanted === 'file' && (await stat(file)).isDirectory()) return 'is a folder, not a file';
    await access(file, constants.R_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `no such ${wanted}`;
    if (code === 'EACCES') return 'not readable (permission denied)';
    return (error as Error).message;
  }
}

/**
 * The failure of a --corpus that gave no article, with what the ingest skipped. Evaluating went on to the
 * scratch index, which was never made, and said "no index in /tmp/litserve-eval-…; build one with …",
 * naming a folder already deleted.
 */
export function corpusYieldedNothing(config: EvalInputs, report: IngestReport): Error {
  const skipped: string[] = [];
  const skippedInputs = report.skippedFiles + report.unreadableFolders;
  if (report.files === 0 && report.unreadableFolders === 0) skipped.push('it holds no file');
  // In the words of ingest's summary, so that the two name one skip alike.
  else if (skippedInputs > 0) skipped.push(describeFiles(report));
  if (report.skipped > 0) skipped.push(`${report.skipped} of the ${report.read} record(s) read skipped`);
  const why = skipped.length > 0 ? ` (${skipped.join('; ')}${skippedInputs + report.skipped > 0 ? ', each named above' : ''})` : '';
  return new Error(`the corpus given to ${givenAs(config, 'corpus')} yielded no articles${why}: nothing to evaluate`);
}
