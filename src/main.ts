/**
 * The one command-line entry: `serve` (default), `ingest` and `eval`.
 *   npm start -- [--port N --host H --index DIR ...]      (see --help)
 *   npm run ingest -- --index DIR [--input PATH...] [--format F] [--delete ID...] [--delete-file F...] [--merge]
 *                      [--stored-compression dictionary|none|deflate]
 *   npm run eval -- --corpus F --queries F --qrels F [--bm25-k1 X --bm25-b X --title-weight X]
 * Every command's flags are rows of the settings table (src/config/settings.ts); `--help` lists them.
 * The entry of a checkout (npm scripts, tsx); the single executable's is src/runtime/binary-main.ts.
 */
import { printDecision } from './runtime/start-decision-bundle.js';
import { watchIngestStart } from './ingest-start-interruption.js';
import { decideStart } from './start-decision.js';

// The arguments alone settle --version, --help, option errors and missing files; otherwise the settings parsed to
// decide are the command's. (The single executable decides with a bundle of its own: src/runtime/binary-main.ts.)
const decision = decideStart(process.argv.slice(2), process.env, false);
if ('exit' in decision) process.exit(printDecision(decision));
// A signal while the command's modules load is said too: from here ingest may say it wrote nothing.
if (decision.run === 'ingest') watchIngestStart();
// Imported only now, and dynamically (still an ES module import): the server, ingest and eval code takes seconds
// to load from the TypeScript sources, which answers from the arguments alone would otherwise wait for.
const { runCommand } = await import('./run-command.js');
await runCommand(decision.run, decision.config, false);
