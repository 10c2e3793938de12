/**
 * An article id as messages show it: in double quotes, with every character a terminal would not show as
 * itself written as an escape (`\u{200b}`), so `"z1\u{200b}"` cannot read as `"z1"`. JSON.stringify escapes
 * control characters only: a zero-width space, a bidirectional control or a non-breaking space came out as
 * they were, invisible or reordering what followed.
 */
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function quotedId(id: string): string {
  let quoted = '"';
  for (const character of id) {
    if (character === '"' || character === '\\') quoted += `\\${character}`;
    else if (SHORT_ESCAPES[character] !== undefined) quoted += SHORT_ESCAPES[character];
    else if (character !== ' ' && /[\p{C}\p{Z}]/u.test(character)) quoted += `\\u{${character.codePointAt(0)!.toString(16)}}`;
    else quoted += character;
  }
  return `${quoted}"`;
}
