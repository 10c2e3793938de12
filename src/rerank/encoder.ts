/**
 * Turns text into model inputs with the model's own tokenizer.json: the
 * tokenizer's pre-tokenisation and vocabulary, its post-processor for the
 * special tokens ([CLS] a [SEP] b [SEP] for BERT), and truncation to the
 * model's maximum length, longest sequence first as Hugging Face does for
 * pairs. The JS tokenizer library does not truncate, so this module does.
 */
import { Tokenizer } from '@huggingface/tokenizers';

// Text past what maxLength tokens can hold is cut before tokenising (synchronous work: a 100,000-character
// paragraph took over 300 ms, to keep 512 tokens). WordPiece and BPE tokens average 4-5 characters of English;
// 16 per token leaves room for long words and spacing, so the kept tokens are the same.
const CHARS_PER_TOKEN_BOUND = 16;

export interface Encoding {
  ids: number[];
  typeIds: number[];
}

/** The post-processor API of @huggingface/tokenizers (not in its public types). */
interface PostProcessor {
  post_process(tokens: string[], pair?: string[] | null, addSpecialTokens?: boolean): { tokens: string[]; token_type_ids?: number[] };
}

export class InputEncoder {
  private readonly postProcessor: PostProcessor | null;
  /** Special tokens the post-processor adds around one sequence and around a pair. */
  private readonly specialsSingle: number;
  private readonly specialsPair: number;

  constructor(
    private readonly tokenizer: Tokenizer,
    readonly maxLength: number,
  ) {
    this.postProcessor = (tokenizer as unknown as { post_processor: PostProcessor | null }).post_processor;
    this.specialsSingle = this.withSpecialTokens(['x'], null).tokens.length - 1;
    this.specialsPair = this.withSpecialTokens(['x'], ['y']).tokens.length - 2;
    if (this.maxLength <= this.specialsPair + 1) throw new Error(`maximum length ${maxLength} leaves no room for text`);
  }

  /** One sequence (a query or passage for a bi-encoder). */
  encode(text: string): Encoding {
    const tokens = this.tokenize(text).slice(0, this.maxLength - this.specialsSingle);
    return this.assemble(tokens, null);
  }

  /** (query, passage) pairs for a cross-encoder, truncated longest-first; the query is tokenised once. */
  encodePairs(first: string, seconds: readonly string[]): Encoding[] {
    const query = this.tokenize(first);
    return seconds.map((second) => this.truncatePair([...query], this.tokenize(second)));
  }

  private tokenize(text: string): string[] {
    let end = Math.min(text.length, this.maxLength * CHARS_PER_TOKEN_BOUND);
    // Never cut between the two halves of a surrogate pair.
    if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1]!)) end--;
    return this.tokenizer.tokenize(text.slice(0, end));
  }

  private truncatePair(a: string[], b: string[]): Encoding {
    let excess = a.length + b.length - (this.maxLength - this.specialsPair);
    // Trim one token at a time from the end of the longer sequence (ties: the second), like transformers' longest_first.
    while (excess-- > 0) {
      if (a.length > b.length) a.pop();
      else b.pop();
    }
    return this.assemble(a, b);
  }

  private assemble(a: string[], b: string[] | null): Encoding {
    const { tokens, typeIds } = this.withSpecialTokens(a, b);
    const ids = tokens.map((token) => {
      const id = this.tokenizer.token_to_id(token);
      if (id === undefined) throw new Error(`token "${token}" is not in the tokenizer's vocabulary`);
      return id;
    });
    return { ids, typeIds };
  }

  private withSpecialTokens(a: string[], b: string[] | null): { tokens: string[]; typeIds: number[] } {
    if (!this.postProcessor) return { tokens: [...a, ...(b ?? [])], typeIds: [...a.map(() => 0), ...(b ?? []).map(() => 1)] };
    const out = this.postProcessor.post_process(a, b, true);
    return { tokens: out.tokens, typeIds: out.token_type_ids ?? out.tokens.map(() => 0) };
  }
}
