/**
 * What the arguments alone decide, before any command runs: --version, --help, an unknown command,
 * every error the settings table finds in the options (unknown option, bad value, a required flag missing),
 * and a file or index the command is given that is not there (src/command-files.ts).
 *
 * main.ts asks this first. The single executable asks it before it writes the native libraries it carries
 * (src/runtime/binary-main.ts runs a bundle of this module), so that `litserve --version` on a host whose cache
 * is not writable, or by an account without a home, does not fail on that write, and `--help` does not write
 * 90 MB to a fresh cache before printing. Nothing reached from here may load a native or carried file.
 */
import { commandFileError } from './command-files.js';
import { COMMANDS, ConfigError, givenAs, helpText, loadConfig, type Command, type Config } from './config.js';
import { IndexMissingError } from './search/manifest.js';
import packageJson from '../package.json' with { type: 'json' };

/** What to print, and the code to exit with. */
export type ExitDecision = { exit: number; stdout?: string; stderr?: string };

/** Print and exit, or run the command with the settings its arguments and the environment gave (parsed once, here). */
export type StartDecision = ExitDecision | { run: Command; config: Config };

/** From a checkout the commands are npm scripts; in the single executable they are its own arguments. */
function usagePrefix(inExecutable: boolean): Record<Command, string> {
  return inExecutable
    ? { serve: 'litserve [serve]', ingest: 'litserve ingest', eval: 'litserve eval' }
    : { serve: 'npm start --', ingest: 'npm run ingest --', eval: 'npm run eval --' };
}

function usage(command: Command, inExecutable: boolean): string {
  const prefix = usagePrefix(inExecutable);
  switch (command) {
    case 'serve': {
      /** The top-level help names every command, serve's options following. */
      const commandsHelp = [
        'Commands:',
        `  serve   the HTTP server: search, QA, archives, the /v1 platform (the default command; its options are below)`,
        `  ingest  builds or updates an index from article files (${prefix.ingest} --help)`,
        `  eval    measures retrieval on a BEIR dataset: nDCG@10, Recall@100, MRR@10 (${prefix.eval} --help)`,
        '  --version prints the version, --help this text.',
      ].join('\n');
      const also = inExecutable ? 'litserve ingest ..., litserve eval ..., litserve --version' : 'npm run ingest -- --help, npm run eval -- --help';
      return `${prefix.serve} [options]    (also: ${also})\n\n${commandsHelp}`;
    }
    case 'ingest':
      return `${prefix.ingest} --index DIR [--input PATH...] [--delete ID...] [--delete-file FILE...] [--merge] [options]`;
    case 'eval':
      return `${prefix.eval} (--corpus corpus.jsonl | --index DIR) --queries queries.jsonl --qrels qrels.tsv [options]`;
  }
}

/** What a command needs of its settings beyond each one's own checks (the table's). */
function checkCommandSettings(command: Command, config: Config): void {
  if (command === 'ingest' && config.input.length === 0 && config.delete.length === 0 && config.deleteFile.length === 0 && !config.merge) {
    throw new ConfigError('ingest needs --input, --delete, --delete-file or --merge; see --help');
  }
  if (command !== 'eval') return;
  if (!config.corpus && config.indexIsDefault) throw new ConfigError('eval needs --corpus or --index; see --help');
  if (config.corpus && !config.indexIsDefault) {
    // An INDEX_DIR exported for serve and ingest makes `eval --corpus` fail on an --index never typed: name what was given where.
    const fromEnvironment = config.givenIn.corpus === 'environment' || config.givenIn.index === 'environment';
    const given = fromEnvironment ? `; got ${givenAs(config, 'corpus')} and ${givenAs(config, 'index')}` : '';
    throw new ConfigError(`eval takes --corpus (indexed into a scratch index) or --index (an index built already), not both${given}`);
  }
}

/** The error of a command given no index where it needs one, with the command that builds one (exit 1). */
export function explainIndexMissing(error: IndexMissingError, inExecutable: boolean): string {
  return `${error.message}; build one with: ${usagePrefix(inExecutable).ingest} --input PATH --index ${error.dir}`;
}

/** A file the command cannot read, or an index it needs that is not there: exit 1, as when the command itself had found it. */
function fileErrorDecision(error: Error, inExecutable: boolean): ExitDecision {
  return { exit: 1, stderr: `error: ${error instanceof IndexMissingError ? explainIndexMissing(error, inExecutable) : error.message}\n` };
}

const isCommand = (word: string): word is Command => (COMMANDS as readonly string[]).includes(word);

/** package.json's `engines`: index files and ZIP archives are checksummed with zlib.crc32, which Node has since 20.15. */
const OLDEST_NODE = /^>=(\d+)\.(\d+)\./.exec(packageJson.engines.node)!.slice(1).map(Number) as [number, number];

/** Why a command cannot run on Node `version`, or null. Said at once, rather than an older Node failing on its first checksum. */
function nodeTooOld(version: string): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > OLDEST_NODE[0] || (major === OLDEST_NODE[0] && minor >= OLDEST_NODE[1])) return null;
  return `litserve needs Node ${OLDEST_NODE.join('.')} or later (it checksums index files and ZIP archives with zlib.crc32); this is Node ${version}`;
}

/** `args`: the command line after the program (process.argv.slice(2)); `nodeVersion`: the Node running it. */
export function decideStart(args: readonly string[], env: NodeJS.ProcessEnv, inExecutable: boolean, nodeVersion = process.versions.node): StartDecision {
  // Anywhere, as --help: `litserve --port 1 --version` and `litserve ingest --version` are answered, not unknown options.
  if (args.includes('--version')) return { exit: 0, stdout: `litserve ${packageJson.version} (Node ${nodeVersion})\n` };
  const [first = 'serve', ...rest] = args;
  // Options without a command are serve's, short ones too (`-p 9000`, `-h`).
  const command = isCommand(first) ? first : first.startsWith('-') ? 'serve' : null;
  if (command === null) return { exit: 2, stderr: `error: unknown command "${first}"; commands: ${COMMANDS.join(', ')}\n` };
  if (args.includes('--help') || args.includes('-h')) return { exit: 0, stdout: `usage: ${usage(command, inExecutable)}\n\n${helpText(command)}\n` };
  const tooOld = nodeTooOld(nodeVersion);
  if (tooOld !== null) return { exit: 1, stderr: `error: ${tooOld}\n` };
  try {
    const config = loadConfig(isCommand(first) ? rest : args, env, command);
    checkCommandSettings(command, config);
    const fileError = commandFileError(command, config);
    return fileError === null ? { run: command, config } : fileErrorDecision(fileError, inExecutable);
  } catch (error) {
    if (error instanceof ConfigError) return { exit: 2, stderr: `error: ${error.message}\n` };
    throw error;
  }
}
