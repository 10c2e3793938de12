/**
 * The configuration of a command out of its arguments and the environment.
 * Precedence: command-line flag > environment variable > default.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './error.js';
import { camelOf, envOf, flagOf } from './names.js';
import { boolean } from './parsers.js';
import { COMMANDS, settingOf, TABLE, takes, type Command, type Config, type SettingName } from './settings.js';
import { didYouMean, listFlags, meantFlags } from './suggestions.js';

/** One-letter aliases and the flags they stand for (`-p` -> `--port`). */
const SHORT_FLAGS = new Map<string, string>();
for (const [key, setting] of Object.entries(TABLE)) if (setting.short) SHORT_FLAGS.set(`-${setting.short}`, `--${flagOf(key)}`);

/** A word with one dash (`-q`, `-quiet`, `-x=1`): an option mistyped, not a value. */
const DASH_WORD = /^-[a-zA-Z]/;

/**
 * Builds the configuration of `command` from `--flag value` / `--flag=value` / `-p value`
 * arguments and the environment. Settings the command does not take keep
 * their defaults; their flags are unknown options for it.
 */
export function loadConfig(argv: readonly string[] = [], env: NodeJS.ProcessEnv = process.env, command: Command = 'serve'): Config {
  const fromFlags = parseFlags(argv, command);
  const config: Record<string, unknown> = {};
  const givenIn: Config['givenIn'] = {};
  for (const [key, setting] of Object.entries(TABLE)) {
    const flag = flagOf(key);
    const name = `--${flag} / ${envOf(key)}`;
    const raw = takes(setting, command) ? (fromFlags.get(flag) ?? (env[envOf(key)] === undefined ? undefined : [env[envOf(key)]!])) : undefined;
    if (raw !== undefined) givenIn[key as SettingName] = fromFlags.has(flag) ? 'flag' : 'environment';
    if (raw === undefined) {
      if (setting.requiredBy?.includes(command)) throw new ConfigError(`${command} needs --${flag}; see --help`);
      config[key] = setting.default;
    } else {
      const values = raw.map((value) => setting.parse(value, name));
      config[key] = setting.multiple ? values : values.at(-1);
      // An empty value unsets a path; a required one may not be unset: `--index "$UNSET_VARIABLE"` would
      // write into the default index, the one `npm start` serves.
      if (config[key] === null && setting.requiredBy?.includes(command)) throw new ConfigError(`${command} needs --${flag}, given empty (${name}); see --help`);
    }
  }
  const resolved = config as Config;
  resolved.givenIn = givenIn;
  // The default is relative to the working directory, and from `/` (a service unit without WorkingDirectory, a
  // root shell) it is the system's own /var, where a server would make `index` and `platform` beside the system's.
  if (takes(TABLE.data!, command) && givenIn.data === undefined && path.resolve(resolved.data) === path.resolve('/', String(TABLE.data!.default))) {
    throw new ConfigError(`${command} started from / needs --data: the default, ${TABLE.data!.default}, is relative to the working directory and would be the system's /${TABLE.data!.default}; see --help`);
  }
  resolved.indexIsDefault = resolved.index === null;
  if (resolved.index === null) resolved.index = path.join(resolved.data, 'index');
  return resolved;
}

/** `-p` and `-p=9000` as `--port` and `--port=9000`; other arguments as they are. */
function longForm(arg: string): string {
  const short = /^(-[a-zA-Z])(=.*)?$/.exec(arg);
  const flag = short ? SHORT_FLAGS.get(short[1]!) : undefined;
  return flag === undefined ? arg : flag + (short![2] ?? '');
}

/** Raw values per flag; a flag given twice keeps both (the last wins unless the setting takes several). */
function parseFlags(argv: readonly string[], command: Command): Map<string, string[]> {
  const values = new Map<string, string[]>();
  let lastMultiple: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const match = /^--([^=]+)(?:=(.*))?$/.exec(longForm(arg));
    if (!match) {
      // `--input a b c`: values after a multi-valued flag belong to it.
      if (lastMultiple !== null) {
        checkPathValue(arg, lastMultiple, command);
        values.get(lastMultiple)!.push(arg);
        continue;
      }
      // `-v` is worded as `--bogus` is, not as an "unexpected argument": one mistake, one vocabulary.
      if (DASH_WORD.test(arg)) throw new ConfigError(`unknown option ${arg} for ${command}${didYouMean(arg, command)}; see --help`);
      throw new ConfigError(`unexpected argument "${arg}"; see --help`);
    }
    const name = match[1]!;
    const setting = /^[a-z0-9-]+$/.test(name) ? settingOf(camelOf(name)) : undefined;
    if (!setting || !takes(setting, command)) throw new ConfigError(unknownOption(name, command));
    let value = match[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || longForm(next).startsWith('--')) {
        // A bare boolean flag (`--llm-gpu`) means true.
        if (setting.parse === boolean) value = 'true';
        else throw new ConfigError(`option --${name} needs a value`);
      } else {
        if (setting.multiple) checkPathValue(next, name, command);
        else checkSinglePathValue(next, name, command);
        value = next;
        i++;
      }
    }
    values.set(name, [...(values.get(name) ?? []), value]);
    lastMultiple = setting.multiple ? name : null;
  }
  return values;
}

/**
 * A value of a many-valued path flag that names nothing and starts with a dash is a mistyped option, refused as one:
 * taken as a value, `--input f.nxml -q` would read -q as an input, then fail on a missing "-q".
 */
function checkPathValue(value: string, flag: string, command: Command): void {
  if (DASH_WORD.test(value) && settingOf(camelOf(flag))!.paths && !existsSync(value)) {
    throw new ConfigError(
      `${value}, after --${flag}, is no file or folder and looks like an option: unknown option ${value} for ${command}${didYouMean(value, command)}; see --help`,
    );
  }
}

/**
 * A single-valued path flag followed by an option, or a near miss of one (`--index -q --input x`), is given no
 * value, so that `-q` does not become the index folder. A path that starts with a dash is still given as `./-q`.
 */
function checkSinglePathValue(value: string, flag: string, command: Command): void {
  const kind = settingOf(camelOf(flag))!.paths;
  if (kind === undefined || !DASH_WORD.test(value)) return;
  const meant = meantFlags(value, command);
  const named = settingOf(camelOf(value.replace(/^-+/, '').replace(/=.*$/, ''))) !== undefined;
  if (meant.length === 0 && !named) return;
  throw new ConfigError(
    `--${flag} needs a ${kind}, and "${value}" looks like an option${meant.length > 0 ? ` (${listFlags(meant)}?)` : ''}; ` +
      `a ${kind} whose name starts with a dash is written ./${value}; see --help`,
  );
}

/** Names the command an option belongs to, or the option the user probably meant. */
function unknownOption(name: string, command: Command): string {
  const known = settingOf(camelOf(name));
  if (known) {
    const owners = COMMANDS.filter((other) => takes(known, other)).join(', ');
    return `unknown option --${name} for ${command} (an option of ${owners}); see --help`;
  }
  return `unknown option --${name} for ${command}${didYouMean(name, command)}; see --help`;
}
