/** What a mistyped option probably stood for, for the messages refusing it. */
import { alternatives } from '../alternatives.js';
import { envOf, flagOf } from './names.js';
import { TABLE, takes, type Command } from './settings.js';

/** ` (did you mean --port?)`, or nothing when no option of the command is near what was typed. */
export function didYouMean(typed: string, command: Command): string {
  const meant = meantFlags(typed, command);
  return meant.length > 0 ? ` (did you mean ${listFlags(meant)}?)` : '';
}

export function listFlags(flags: string[]): string {
  return alternatives(flags.map((flag) => `--${flag}`));
}

/** A lone letter (`-i`) is answered with the flags it starts, when they are this few. */
const MAX_LETTER_SUGGESTIONS = 3;

/**
 * The options of `command` a mistyped one probably stands for: the flag of an environment variable written
 * as a flag (`--index-dir` for INDEX_DIR), a near spelling (`--prot`, `--Port`, `--llm_model`), a flag with
 * a word added (`--index-path`), or the flags a lone letter starts (`-q`).
 */
export function meantFlags(typed: string, command: Command): string[] {
  const name = typed.replace(/^-+/, '').replace(/=.*$/, '').toLowerCase().replace(/_/g, '-');
  const keys = Object.keys(TABLE).filter((key) => takes(TABLE[key]!, command));
  const byVariable = keys.filter((key) => envOf(key).toLowerCase().replace(/_/g, '-') === name);
  if (byVariable.length > 0) return byVariable.map(flagOf);
  const flags = keys.map(flagOf);
  if (name.length === 1) {
    const starting = flags.filter((flag) => flag.startsWith(name));
    return starting.length <= MAX_LETTER_SUGGESTIONS ? starting : [];
  }
  const near = flags
    .map((flag) => ({ flag, distance: editDistance(name, flag) }))
    .filter(({ distance }) => distance <= Math.max(1, Math.floor(name.length / 4)))
    .sort((a, b) => a.distance - b.distance);
  // A one-letter slip beats a word added; a word added beats a flag two letters off (`--index-path` is not `--index-watch`).
  if (near.length > 0 && near[0]!.distance <= 1) return [near[0]!.flag];
  const extended = flags.filter((flag) => name.startsWith(`${flag}-`)).sort((a, b) => b.length - a.length);
  if (extended.length > 0) return [extended[0]!];
  return near.slice(0, 1).map(({ flag }) => flag);
}

/** Edit distance counting insertions, deletions, substitutions and swaps of neighbours (`prot` is one from `port`). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i]!;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}
