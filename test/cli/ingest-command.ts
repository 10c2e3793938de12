/** Runs `ingest` as a user does (the real command in a child process), from the checkout. */
import { spawnSync } from 'node:child_process';
import { COMPILED_MAIN } from '../compiled-server.js';

export function ingestCli(...args: string[]): { code: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [COMPILED_MAIN, 'ingest', ...args], { encoding: 'utf8' });
  return { code: result.status, stderr: result.stderr };
}
