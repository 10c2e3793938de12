/**
 * The JSON shape the model must produce, as a grammar-constrained schema,
 * and the reading of its output (including output cut short by the token
 * limit, which the grammar cannot prevent).
 */
import type { GbnfJsonSchema } from 'node-llama-cpp';
import { AnswerStreamExtractor } from './answer-stream.js';

interface ModelAnswer {
  has_answer: boolean;
  answer: string;
  sources: number[];
}

/**
 * The schema for one question, over the ids of the contexts in its prompt.
 *
 * It is `{has_answer: boolean, answer: string, sources: integer[]}` with
 * refinements that keep the output valid and finite whatever the weights:
 * sources can only be ids of the given contexts, at least one and at most
 * one per context; an unanswered question cites nothing; the answer has at
 * most `answerMaxChars` characters. Property order matters: the answer precedes the sources, so it
 * can be streamed.
 */
export function answerSchema(contextIds: readonly number[], answerMaxChars: number) {
  const answer = { type: 'string', maxLength: answerMaxChars } as const;
  const cited =
    contextIds.length > 0
      ? ({ type: 'array', items: { enum: [...contextIds] }, minItems: 1, maxItems: contextIds.length } as const)
      : ({ type: 'array', maxItems: 0 } as const);
  return {
    oneOf: [
      { type: 'object', properties: { has_answer: { const: true }, answer, sources: cited } },
      { type: 'object', properties: { has_answer: { const: false }, answer, sources: { type: 'array', maxItems: 0 } } },
    ],
  } as const satisfies GbnfJsonSchema;
}

/**
 * Longest answer the grammar allows, in characters, when no bound is set: half the answer's token budget
 * at the prompt's own rate of tokens per character, so the grammar closes the answer while its sources
 * still fit. The answer is written in the language of its question and contexts, whose rate the prompt
 * shows: English costs about 0.21-0.25 tokens per character with a Llama-2 vocabulary, Chinese about 1.5
 * (each character a byte or two of fallback tokens). A fixed twice maxTokens suited English only: in
 * Chinese it was three times the budget, so every long answer reached the token limit (502 code 6)
 * whatever --llm-max-tokens said. Twice maxTokens stays the most, as before for English.
 */
export function answerLengthBound(maxTokens: number, tokensPerCharacter: number): number {
  const mostCharacters = 2 * maxTokens;
  if (!(tokensPerCharacter > 0)) return mostCharacters;
  return Math.max(1, Math.min(mostCharacters, Math.floor(maxTokens / (2 * tokensPerCharacter))));
}

interface ReadOutput {
  answer: ModelAnswer;
  /** False when the JSON was cut short; the fields then hold what was complete. */
  complete: boolean;
}

export function readModelOutput(text: string): ReadOutput {
  try {
    const parsed = JSON.parse(text) as Partial<ModelAnswer>;
    return {
      complete: true,
      answer: {
        has_answer: parsed.has_answer === true,
        answer: typeof parsed.answer === 'string' ? parsed.answer : '',
        sources: Array.isArray(parsed.sources) ? parsed.sources : [],
      },
    };
  } catch {
    return { complete: false, answer: salvage(text) };
  }
}

/** Recovers the fields a truncated document had finished. */
function salvage(text: string): ModelAnswer {
  const extractor = new AnswerStreamExtractor();
  extractor.push(text);
  const sources = /"sources"\s*:\s*\[([^\]]*)\]/.exec(text)?.[1];
  return {
    has_answer: /"has_answer"\s*:\s*true/.test(text),
    answer: extractor.text,
    sources: sources ? (sources.match(/-?\d+/g) ?? []).map(Number) : [],
  };
}
