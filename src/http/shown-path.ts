/**
 * A request's path as an error message quotes it: whole up to SHOWN_PATH_LENGTH characters, else its start and
 * its length. An answer refusing a 16 KiB path had quoted all of it (a 4 KB body for a 4 KB path), and so
 * had every log line of it.
 */
export const SHOWN_PATH_LENGTH = 256;

export function shownPath(path: string): string {
  return path.length <= SHOWN_PATH_LENGTH ? path : `${path.slice(0, SHOWN_PATH_LENGTH)}… (${path.length} characters)`;
}
