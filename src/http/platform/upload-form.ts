/**
 * The bounds of an upload's multipart/form-data body, and the words of its refusals: @fastify/multipart's own
 * ("reach fields limit", "prototype property is not allowed as field name") named neither the bound or the field
 * nor what an upload holds.
 */
export const UPLOAD_FORM_LIMITS = { files: 1, fields: 10, parts: 20, fieldSize: 64 * 1024 } as const;

const WHAT_AN_UPLOAD_HOLDS = "an upload is one part named 'file' holding the file (other fields are not read)";

/** The reason of a form refused by its bounds or its field names, by @fastify/multipart's error code; null for another code. */
export function formRefusalReason(code: string | undefined): string | null {
  if (code === 'FST_FIELDS_LIMIT') return `The form holds more than ${UPLOAD_FORM_LIMITS.fields} fields besides the file: ${WHAT_AN_UPLOAD_HOLDS}.`;
  if (code === 'FST_PARTS_LIMIT') return `The form holds more than ${UPLOAD_FORM_LIMITS.parts} parts: ${WHAT_AN_UPLOAD_HOLDS}.`;
  // The multipart parser refuses these names outright, as it keeps the fields in an object.
  if (code === 'FST_PROTO_VIOLATION') return `A form field is named as a property of every object (such as __proto__, constructor or toString), which the form reader refuses: ${WHAT_AN_UPLOAD_HOLDS}.`;
  return null;
}
