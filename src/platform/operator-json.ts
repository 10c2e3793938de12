/**
 * A JSON file the operator writes (the auth file, an OIDC key set), read whole: its text and value, or why there are
 * none. The parser quotes the text it stopped at; its control characters (a file of NULs) are written as escapes, so
 * that a message quoting it does not reach a terminal with them as they are.
 */
import { readFileSync } from 'node:fs';

export type OperatorJson = { text: string; json: unknown } | { unreadable: NodeJS.ErrnoException } | { notJson: string };

export function readOperatorJson(file: string): OperatorJson {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { unreadable: error as NodeJS.ErrnoException };
  }
  try {
    return { text, json: JSON.parse(text) };
  } catch (error) {
    return { notJson: (error as Error).message.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) };
  }
}
