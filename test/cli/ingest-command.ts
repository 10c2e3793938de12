/** Runs `ingest` as a user does (the real command in a child process), from the checkout. */
import { runCommand } from '../compiled-server.js';

export const ingestCli = (...args: string[]) => runCommand(['ingest', ...args]);
