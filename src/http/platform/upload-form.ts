/**
 * The bounds of an upload's multipart/form-data body, and the words of their refusals: @fastify/multipart's own
 * ("reach fields limit") named neither the bound nor what an upload holds.
 */
export const UPLOAD_FORM_LIMITS = { files: 1, fields: 10, parts: 20, fieldSize: 64 * 1024 } as const;

const WHAT_AN_UPLOAD_HOLDS = "an upload is one part named 'file' holding the file (other fields are not read)";

/** The reason of a form refused by its bounds, by @fastify/multipart's error code; null for another code. */
export function formLimitReason(code: string | undefined): string | null {
  if (code === 'FST_FIELDS_LIMIT') return `The form holds more than ${UPLOAD_FORM_LIMITS.fields} fields besides the file: ${WHAT_AN_UPLOAD_HOLDS}.`;
  if (code === 'FST_PARTS_LIMIT') return `The form holds more than ${UPLOAD_FORM_LIMITS.parts} parts: ${WHAT_AN_UPLOAD_HOLDS}.`;
  return null;
}
