/**
 * The files and folders a command is given, checked as its start is decided (src/start-decision.ts),
 * before it runs: a mistyped path fails at once, named as the user gave it (by its flag, or by its
 * environment variable), before eval indexes the corpus, which takes minutes for a large one, and before
 * the single executable writes the files it carries (86 MiB on a first start): it decides the start first.
 *
 * The start decision runs before those files are written, so this module reads the file system with
 * node:fs alone and imports nothing the decision does not already import (src/runtime/start-decision-bundle.ts).
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { givenAs, type Command, type Config } from './config.js';
import { IndexMissingError, MANIFEST_FILE, noIndexError } from './search/manifest.js';

/** What a command's files must be: what each kind is called, and what a folder given for it is told. */
const KINDS = {
  file: { missing: 'no such file', folder: 'is a folder, not a file' },
  'file or folder': { missing: 'no such file or folder', folder: null },
  'file of ids': { missing: 'no such file', folder: 'is a directory, not a file of ids' },
} as const;

function problemOf(file: string, kind: keyof typeof KINDS): string | null {
  try {
    const folderRefused = KINDS[kind].folder;
    if (folderRefused !== null && statSync(file).isDirectory()) return folderRefused;
    accessSync(file, constants.R_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return KINDS[kind].missing;
    if (code === 'EACCES') return 'not readable (permission denied)';
    return (error as Error).message;
  }
}

/** Each file or folder of the command that cannot be read, with why (all of them, so that one run names every typo). */
function unreadable(command: Command, config: Config): string[] {
  const problems: string[] = [];
  const add = (named: string, problem: string | null) => problem !== null && problems.push(`${named}: ${problem}`);
  if (command === 'ingest') {
    // Named by the flag as given, even from INGEST_DELETE_FILE: the variable holds a list, and this names one of its files.
    for (const file of config.deleteFile) add(`--delete-file ${file}`, problemOf(file, 'file of ids'));
  }
  // serve: checked here, as the auth file is read only once the index is there: on a first start, after the demo index is built.
  if (command === 'serve' && config.authFile !== null) add(givenAs(config, 'authFile'), problemOf(config.authFile, 'file'));
  if (command === 'eval') {
    for (const key of ['queries', 'qrels'] as const) add(givenAs(config, key), problemOf(config[key]!, 'file'));
    if (config.corpus !== null) add(givenAs(config, 'corpus'), problemOf(config.corpus, 'file or folder'));
  }
  return problems;
}

/**
 * Why the index serve or eval is to open is not there, or null. Serve's default index is built on its
 * first start, and eval's --corpus is indexed into a scratch one: only an index given is looked for.
 */
function indexToOpenError(command: Command, config: Config): Error | null {
  const opensGivenIndex = (command === 'serve' && !config.indexIsDefault) || (command === 'eval' && config.corpus === null);
  if (!opensGivenIndex) return null;
  try {
    statSync(path.join(config.index, MANIFEST_FILE));
    return null;
  } catch (error) {
    // Told as opening the index tells it (readManifest); anything else (a manifest not readable) is left to that.
    return noIndexError(config.index, error);
  }
}

/**
 * The first thing wrong with the files the command is given, or null when it may run. An IndexMissingError
 * when ingest is to delete or merge in an index that does not exist: made there, empty, a mistyped --index
 * would have the run say "nothing to merge" (or list the ids as not found) with exit 0. Likewise an index
 * serve or eval is given that is not there: found here, not as they open it, after the single executable
 * has written its carried files.
 */
export function commandFileError(command: Command, config: Config): Error | null {
  const problems = unreadable(command, config);
  if (problems.length > 0) return new Error(problems.join('; '));
  if (command === 'ingest' && config.input.length === 0 && !existsSync(path.join(config.index, MANIFEST_FILE))) {
    return new IndexMissingError(config.index, `no index in ${config.index} (${MANIFEST_FILE} not found): nothing to delete or merge`);
  }
  return indexToOpenError(command, config);
}
