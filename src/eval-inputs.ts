/**
 * What `eval` is given, named as the user gave it: by its flag, or by its environment variable. (Its files
 * are checked as the start is decided, in src/command-files.ts.)
 */
import { givenAs, type Config } from './config.js';
import { whyNothingIndexed, type IngestReport } from './corpus/ingest.js';

type EvalInputs = Pick<Config, 'corpus' | 'givenIn'>;

/**
 * The failure of a --corpus that gave no article, with what the ingest skipped. Evaluating went on to the
 * scratch index, which was never made, and said "no index in /tmp/litserve-eval-…; build one with …",
 * naming a folder already deleted.
 */
export function corpusYieldedNothing(config: EvalInputs, report: IngestReport): Error {
  return new Error(`the corpus given to ${givenAs(config, 'corpus')} yielded no articles${whyNothingIndexed(report)}: nothing to evaluate`);
}
