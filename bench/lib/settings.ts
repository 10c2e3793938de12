/**
 * Settings of the benchmarks, read from the environment. A bad value (0, a
 * negative or fractional count, a word, anything but decimal digits and a
 * point) is refused before any work with one line naming the variable: read
 * with Number() alone, "0" built an empty index and failed later with a stack
 * trace, "abc" ran with NaN, and "1e3" or "0x10" passed as other numbers.
 */
import path from 'node:path';

export class BenchSettingError extends Error {}

type Env = Record<string, string | undefined>;

/** A positive number (`integer`: a whole one) from `env[name]`, or `fallback` when unset or empty. */
export function positiveFromEnv(env: Env, name: string, fallback: number, integer: boolean): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return positive(name, raw, integer);
}

/** A comma-separated list of positive whole numbers (e.g. connection steps), or `fallback`. */
export function countsFromEnv(env: Env, name: string, fallback: readonly number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return [...fallback];
  const values = raw.split(',').map((value) => value.trim()).filter(Boolean);
  if (values.length === 0) throw new BenchSettingError(`${name} names nothing, got "${raw}"`);
  return values.map((value) => positive(name, value, true));
}

/** Decimal digits, with a point in a number that need not be whole. */
const DECIMAL = { whole: /^\d+$/, any: /^(\d+\.?\d*|\.\d+)$/ };

function positive(name: string, raw: string, integer: boolean): number {
  const value = Number(raw);
  if (!(integer ? DECIMAL.whole : DECIMAL.any).test(raw.trim()) || !Number.isFinite(value) || value <= 0) {
    throw new BenchSettingError(`${name} must be a positive ${integer ? 'whole number' : 'number'}, got "${raw}"`);
  }
  return value;
}

/** Runs `read` and, on a bad setting, prints its message alone (no stack) after the script's name and exits with status 2. */
export function settingsOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof BenchSettingError)) throw error;
    process.stderr.write(`${path.basename(process.argv[1] ?? 'bench')}: ${error.message}\n`);
    process.exit(2);
  }
}

/** Shorthands for the scripts, from process.env: a whole count, a number, a list of counts; a bad value ends the script. */
export const count = (name: string, fallback: number) => settingsOrExit(() => positiveFromEnv(process.env, name, fallback, true));
export const amount = (name: string, fallback: number) => settingsOrExit(() => positiveFromEnv(process.env, name, fallback, false));
export const counts = (name: string, fallback: readonly number[]) => settingsOrExit(() => countsFromEnv(process.env, name, fallback));
