/** --help's list of options, generated from the settings table. */
import { envOf, flagOf } from './names.js';
import { TABLE, takes, type Command } from './settings.js';

/** The options of one command, generated from the table. */
export function helpText(command: Command = 'serve'): string {
  const lines = ['Options (flag / environment variable, default):'];
  for (const [key, setting] of Object.entries(TABLE)) {
    if (!takes(setting, command)) continue;
    const shownDefault = setting.requiredBy?.includes(command)
      ? 'required'
      : `default: ${forCommand(setting.shownDefault, command) ?? (setting.default === null ? 'unset' : JSON.stringify(setting.default))}`;
    const range = (setting.parse as { range?: string }).range;
    const shown = range === undefined ? shownDefault : `${shownDefault}; ${range}`;
    // Several values follow one flag; the variable holds one (a path or an id may hold spaces, so it is not split).
    const variable = setting.multiple ? `${envOf(key)} (one value)` : envOf(key);
    lines.push(`  ${setting.short ? `-${setting.short}, ` : ''}--${flagOf(key)}${setting.multiple ? ` ${setting.valueName ?? 'PATH'}...` : ''} / ${variable}  (${shown})`);
    lines.push(`      ${forCommand(setting.doc, command)}`);
  }
  return lines.join('\n');
}

function forCommand(text: string | Partial<Record<Command, string>> | undefined, command: Command): string | undefined {
  return typeof text === 'object' ? text[command] : text;
}
