/**
 * The parse of a /v1 JSON payload's text. fastify's parser called a `__proto__` key "not valid JSON" and
 * let a key given twice silently win (`{"name":"a","name":"b"}` stored "b"); both are refused here,
 * naming the key, in the /v1 vocabulary; so are numbers a float cannot keep (see inexact-numbers.ts).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PlatformError } from '../../platform/errors.js';
import { surveyParsed } from '../../platform/payload-survey.js';
import { firstRepeatedKey, quotedKey } from '../json-body.js';
import { firstInexactNumber, readBackAs } from './inexact-numbers.js';
import { shownName } from '../../text/unicode.js';

/**
 * The payload `text` holds, once its checks pass. The parse and the checks each hold the main thread tens of
 * milliseconds for a large body (2 MiB: about 50 and 35 ms), so the event loop gets a turn between them.
 */
export async function parsePayload(text: string): Promise<unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw decodingFailed(`The body is not valid JSON: ${(error as Error).message}.`);
  }
  await nextTurn();
  return checkedPayload(text, value);
}

function checkedPayload(text: string, value: unknown): unknown {
  // The one walk of the value: its other answers (depth, contexts, lone surrogates) are kept for the write's later checks.
  const { prototypeKey, keys } = surveyParsed(value);
  if (prototypeKey !== null) throw decodingFailed(`The key "${prototypeKey}" is not accepted: merged into an object, it could set its prototype.`);
  const repeated = firstRepeatedKey(text, keys);
  if (repeated !== null) throw decodingFailed(`The key ${quotedKey(repeated)} is given more than once in one object; JSON leaves which value counts undefined.`);
  const inexact = firstInexactNumber(text);
  if (inexact !== null) {
    throw decodingFailed(
      `The number ${shownName(inexact, 40)} cannot be kept as written: numbers are stored as 64-bit floating point (integers up to 9007199254740991, 15 to 17 significant digits), so it would read back as ${readBackAs(inexact)}. Send it as a string to keep every digit.`,
    );
  }
  return value;
}


function decodingFailed(reason: string): PlatformError {
  return new PlatformError(400, 'DecodingFailed', reason);
}
