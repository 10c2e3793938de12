/** Settings a command cannot run with (a value a setting does not take, an unknown option, one required missing): a usage error, exit code 2. */
export class ConfigError extends Error {}
