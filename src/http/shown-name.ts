/**
 * A client-chosen name as an error message quotes it. An unknown parameter or
 * field name is as long as the client likes (a query string up to the header
 * bound, a body field up to the body limit); quoting it whole would make every
 * refusal as large as the request. Its start is enough to recognise it.
 */
const SHOWN_CHARACTERS = 64;

export function shownName(name: string): string {
  const characters = Array.from(name);
  // Whole characters, so a surrogate pair is never split into a lone half.
  return characters.length <= SHOWN_CHARACTERS ? name : `${characters.slice(0, SHOWN_CHARACTERS).join('')}… (${characters.length} characters)`;
}
