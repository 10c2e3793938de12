/**
 * Every setting of the server in one place: its command-line flag, its environment variable, its default, its bounds
 * and what it does. `npm start -- --help` lists them.
 *
 * The one entry point of src/config/: other modules import this file, not that folder. The start decision and the
 * single executable load it before any engine module, so nothing it reaches may load the engine, a package or a
 * native file.
 */
export { ConfigError } from './config/error.js';
export { parseDuration } from './config/parsers.js';
export { COMMANDS, defaultOf, type Command, type Config } from './config/settings.js';
export { givenAs } from './config/names.js';
export { loadConfig } from './config/load.js';
export { helpText } from './config/help.js';
export { inFlightPerClient, publicSettings, searcherOptionsOf } from './config/derived.js';
