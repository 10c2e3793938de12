/**
 * The words a yes-or-no value is written in, in any case: true, yes, on or 1, and false, no, off or 0. The
 * settings take them, and so do the /v1 query parameters, as Akka HTTP's unmarshaller reads them for Nexus.
 */
const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['yes', true],
  ['on', true],
  ['1', true],
  ['false', false],
  ['no', false],
  ['off', false],
  ['0', false],
]);

/** The value `text` names, or undefined for a text that is none of the words. */
export function booleanOfWord(text: string): boolean | undefined {
  return BOOLEAN_WORDS.get(text.toLowerCase());
}
