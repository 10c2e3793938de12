/**
 * Preloaded (`node --import tsx --import ./test/cli/record-loaded-modules.ts`) by tests that check which of the
 * project's modules a command loads: appends the URL of every module loaded to the file LOADED_MODULES_FILE names.
 * With HOLD_MODULE (a path ending, `src/run-command.ts`), that module's load never ends: the process stays where it
 * loads it, for a test to signal it there.
 */
import { register } from 'node:module';
import type { RecordOptions } from './record-loaded-modules-hooks.js';

const options: RecordOptions = { file: process.env.LOADED_MODULES_FILE, holdModule: process.env.HOLD_MODULE };
register('./record-loaded-modules-hooks.ts', import.meta.url, { data: options });
