/**
 * The parse of a /v1 JSON payload's text. fastify's parser called a `__proto__` key "not valid JSON" and
 * let a key given twice silently win (`{"name":"a","name":"b"}` stored "b"); both are refused here,
 * naming the key, in the /v1 vocabulary.
 */
import { PlatformError } from '../../platform/errors.js';
import { firstRepeatedKey, keysIn, quotedKey } from '../json-body.js';

export function parsePayload(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw decodingFailed(`The body is not valid JSON: ${(error as Error).message}.`);
  }
  const { prototypeKey, keys } = keysIn(value);
  if (prototypeKey !== null) throw decodingFailed(`The key "${prototypeKey}" is not accepted: merged into an object, it could set its prototype.`);
  const repeated = firstRepeatedKey(text, keys);
  if (repeated !== null) throw decodingFailed(`The key ${quotedKey(repeated)} is given more than once in one object; JSON leaves which value counts undefined.`);
  return value;
}

function decodingFailed(reason: string): PlatformError {
  return new PlatformError(400, 'DecodingFailed', reason);
}
