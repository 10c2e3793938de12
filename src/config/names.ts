/**
 * How the user names a setting: its flag is the kebab-case of its key (`llmModel` -> `--llm-model`), its environment
 * variable the upper snake case (`LLM_MODEL`) unless the table names another; a few have a one-letter alias too
 * (`-p` for `--port`).
 */
import { TABLE, type Config, type SettingName } from './settings.js';

export function flagOf(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

export function envOf(key: string): string {
  return TABLE[key]?.env ?? flagOf(key).replace(/-/g, '_').toUpperCase();
}

/** The key of a flag (`llm-model` -> `llmModel`). */
export function camelOf(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * A setting as the user gave it, for a message about its value: `--corpus scifact/corpus.jsonl`, or
 * `INDEX_DIR=/srv/index (from the environment)`, since a variable exported long ago is easily forgotten.
 */
export function givenAs<K extends SettingName>(config: Pick<Config, K | 'givenIn'>, key: K): string {
  const value = String(config[key]);
  return config.givenIn[key] === 'environment' ? `${envOf(key)}=${value} (from the environment)` : `--${flagOf(key)} ${value}`;
}
