/**
 * Numbers a /v1 payload cannot keep. JSON.parse reads every number as a 64-bit float and the store keeps
 * the parse, so an id of 20 digits, a decimal of more than 17 significant digits or one out of range
 * was stored as another value without a word: `12345678901234567891` read back as
 * `12345678901234567000`, `1e400` as `null`. Nexus keeps such numbers as written; this server cannot,
 * so it refuses them and says how to keep every digit (a string). A number whose value survives is
 * accepted however it is written (`1.0`, `1E2`, `0.50`), though `/source` then writes it the short way.
 */

/** A string (skipped whole, escapes included) or a number literal, as JSON writes them. */
const STRING_OR_NUMBER = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * Written in 15 characters or fewer without an exponent, a number has at most 15 significant digits, which
 * a 64-bit float holds exactly: most literals are this short and skip the comparison.
 */
const SURELY_EXACT_LENGTH = 15;


/** The first number literal of a valid JSON text whose parsed value is not the value written, or null. */
export function firstInexactNumber(text: string): string | null {
  // Most payloads hold no long number and no exponent anywhere, strings included: one search says so.
  if (!mayHoldInexact(text)) return null;
  for (const [literal] of text.matchAll(STRING_OR_NUMBER)) {
    if (literal.charCodeAt(0) === QUOTE) continue;
    if (literal.length <= SURELY_EXACT_LENGTH && !/[eE]/.test(literal)) continue;
    if (!keptExactly(literal)) return literal;
  }
  return null;
}

/**
 * Whether the text holds a run of digits, signs and points longer than SURELY_EXACT_LENGTH, or such a run
 * followed by an exponent's letter: what every literal not surely exact holds. A loop, as a regular
 * expression of a counted run backtracks at every digit (100-300 ms on 2 MB of short numbers).
 */
function mayHoldInexact(text: string): boolean {
  let run = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if ((char >= DIGIT_0 && char <= DIGIT_9) || char === MINUS || char === POINT) {
      if (++run > SURELY_EXACT_LENGTH) return true;
    } else if ((char === LOWER_E || char === UPPER_E) && run > 0) {
      return true;
    } else {
      run = 0;
    }
  }
  return false;
}

/** What a refused literal reads back as, for the message: the float's shortest form, or null out of range. */
export function readBackAs(literal: string): string {
  const value = Number(literal);
  return Number.isFinite(value) ? String(value) : 'null';
}

const QUOTE = 0x22;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const MINUS = 0x2d;
const POINT = 0x2e;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

function keptExactly(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return false;
  // The shortest text naming the float (ECMAScript's Number::toString) is the float's decimal value
  // as far as any reader of it goes; writers that print floats (JavaScript, Python) give exactly that.
  const shortest = String(value);
  if (shortest === literal) return true;
  const written = decimalValue(literal);
  const read = decimalValue(shortest);
  // Zero has no sign here: -0 is stored as 0, as JSON readers treat them alike.
  if (written.digits === '' && read.digits === '') return true;
  return written.negative === read.negative && written.digits === read.digits && written.exponent === read.exponent;
}

/** A decimal as sign, significant digits (no leading or trailing zero) and power of ten: `-0.0120` is -, "12", -3. */
function decimalValue(text: string): { negative: boolean; digits: string; exponent: number } {
  const negative = text.startsWith('-');
  const [mantissa, exponentText] = text.replace(/^-/, '').split(/[eE]/) as [string, string | undefined];
  const [whole, fraction = ''] = mantissa.split('.') as [string, string | undefined];
  let digits = (whole + fraction).replace(/^0+/, '');
  let exponent = Number(exponentText ?? 0) - fraction.length;
  const trailingZeros = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailingZeros);
  exponent += trailingZeros;
  return { negative, digits, exponent: digits === '' ? 0 : exponent };
}
