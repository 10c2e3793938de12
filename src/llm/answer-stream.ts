/**
 * Pulls the value of the top-level "answer" string out of a JSON object
 * while it is still being generated, so the answer can be streamed to the
 * client token by token although the model writes a whole JSON document.
 *
 * Only the structure needed to find that one string is tracked: nesting
 * depth, whether we are inside a string, and the last top-level key.
 * Separators of the raw answer format are neutralised as in the final answer;
 * a piece that may be the start of one is held back until it is known.
 */
import { neutraliseSeparators, safeCut } from './answer.js';
import { isHighSurrogate } from '../text/unicode.js';

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

type Mode =
  | 'structure' // between tokens
  | 'key' // inside a top-level key string
  | 'other-string' // inside a string we do not care about
  | 'answer' // inside the answer string
  | 'done'; // the answer string has closed

export class AnswerStreamExtractor {
  private mode: Mode = 'structure';
  private depth = 0;
  private expectingKey = false;
  private key = '';
  private lastKey = '';
  /** An escape sequence split across chunks (starts with a backslash). */
  private escape = '';
  /** A high surrogate waiting for its low half, so no chunk carries half a character. */
  private pendingHigh = '';
  /** Answer text held back because it may begin a separator ("<bbs_"). */
  private held = '';
  private answer = '';

  /** The answer text extracted so far (including any held back). */
  get text(): string {
    return this.answer + this.held;
  }

  /** True once the closing quote of the answer was seen. */
  get complete(): boolean {
    return this.mode === 'done';
  }

  /** Feeds the next generated chunk; returns the answer text it adds (often ''). */
  push(chunk: string): string {
    let out = '';
    for (const ch of chunk) {
      switch (this.mode) {
        case 'structure':
          this.onStructure(ch);
          break;
        case 'key':
        case 'other-string':
          this.onIgnoredString(ch);
          break;
        case 'answer':
          out += this.onAnswerChar(ch);
          break;
        case 'done':
          return this.commit(out);
      }
    }
    return this.commit(out);
  }

  private commit(out: string): string {
    const text = this.held + out;
    const cut = this.mode === 'done' ? text.length : safeCut(text);
    this.held = text.slice(cut);
    const emitted = neutraliseSeparators(text.slice(0, cut));
    this.answer += emitted;
    return emitted;
  }

  private onStructure(ch: string): void {
    if (ch === '{' || ch === '[') {
      this.depth++;
      this.expectingKey = ch === '{' && this.depth === 1;
    } else if (ch === '}' || ch === ']') {
      this.depth--;
    } else if (ch === ',' && this.depth === 1) {
      this.expectingKey = true;
    } else if (ch === '"') {
      if (this.depth === 1 && this.expectingKey) {
        this.mode = 'key';
        this.key = '';
      } else if (this.depth === 1 && this.lastKey === 'answer') {
        this.mode = 'answer';
      } else {
        this.mode = 'other-string';
      }
    }
  }

  private onIgnoredString(ch: string): void {
    if (this.escape) {
      this.escape = '';
      if (this.mode === 'key') this.key += ch;
    } else if (ch === '\\') {
      this.escape = ch;
    } else if (ch === '"') {
      if (this.mode === 'key') {
        this.lastKey = this.key;
        this.expectingKey = false;
      }
      this.mode = 'structure';
    } else if (this.mode === 'key') {
      this.key += ch;
    }
  }

  private onAnswerChar(ch: string): string {
    if (this.escape) {
      this.escape += ch;
      return this.onEscape();
    }
    if (ch === '\\') {
      this.escape = ch;
      return '';
    }
    if (ch === '"') {
      this.mode = 'done';
      return this.flushSurrogate('');
    }
    return this.flushSurrogate(ch);
  }

  private onEscape(): string {
    const seq = this.escape;
    if (seq.length === 2 && seq[1] !== 'u') {
      this.escape = '';
      return this.flushSurrogate(SIMPLE_ESCAPES[seq[1]!] ?? seq[1]!);
    }
    if (seq.length < 6) return '';
    this.escape = '';
    const unit = String.fromCharCode(parseInt(seq.slice(2), 16));
    if (isHighSurrogate(unit.charCodeAt(0))) {
      const earlier = this.flushSurrogate('');
      this.pendingHigh = unit;
      return earlier;
    }
    return this.flushSurrogate(unit);
  }

  /** Emits `text`, prefixed by a held high surrogate (which `text` may complete). */
  private flushSurrogate(text: string): string {
    const out = this.pendingHigh + text;
    this.pendingHigh = '';
    return out;
  }
}
