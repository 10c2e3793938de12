/** The module hooks of record-loaded-modules.ts (they run in a thread of their own). */
import { appendFileSync } from 'node:fs';
import type { InitializeHook, LoadHook } from 'node:module';

export type RecordOptions = { file?: string; holdModule?: string };

let options: RecordOptions = {};

export const initialize: InitializeHook<RecordOptions> = (given) => {
  options = given;
};

export const load: LoadHook = (url, context, nextLoad) => {
  if (options.file !== undefined) appendFileSync(options.file, `${url}\n`);
  if (options.holdModule !== undefined && url.endsWith(options.holdModule)) return new Promise(() => {});
  return nextLoad(url, context);
};
