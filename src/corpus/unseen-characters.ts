/**
 * Articles whose text holds characters no reader sees or no store keeps: control characters (tab and line
 * ends aside) and lone surrogates. Such an article is kept as read: sources do carry them (a stray U+0007 of
 * a PDF conversion), and refusing the article would lose it for one character. Answers escape control
 * characters below U+0020 in their JSON, and the index's UTF-8 keeps a lone surrogate as U+FFFD. An article_id holding one
 * is refused (ingest.ts); for the other fields the run says where they are, the first articles by name and
 * the others counted, so that a corpus full of them is seen before it is served.
 */
import type { ArticleInput } from './model.js';
import { quotedId } from './quoted-id.js';

/** The articles named one by one; the others are counted in one line. */
export const MAX_UNSEEN_TOLD = 20;

const UNSEEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\p{Surrogate}/u;

/** `U+0007`: a character by its code point, for messages where it would show as nothing. */
export function codePointLabel(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

export class UnseenCharacters {
  private articles = 0;

  constructor(private readonly onWarning: ((message: string) => void) | undefined) {}

  /** Looks at one article read; `where` says where it was read, asked only for an article told. */
  note(article: ArticleInput, where: () => string): void {
    const found = firstUnseen(article);
    if (found === null) return;
    this.articles++;
    if (this.articles > MAX_UNSEEN_TOLD) return;
    this.onWarning?.(`article_id ${quotedId(article.article_id)} at ${where()}: its ${found.field} holds ${describeUnseen(found.character)}; kept as read`);
  }

  /** How many articles held such characters; those past the ones told are counted in one warning. */
  finish(): number {
    const untold = this.articles - MAX_UNSEEN_TOLD;
    if (untold > 0) this.onWarning?.(`... and ${untold} more articles holding control characters or lone surrogates, kept as read`);
    return this.articles;
  }
}

function describeUnseen(character: string): string {
  const code = codePointLabel(character);
  if (/\p{Surrogate}/u.test(character)) return `${code}, a lone surrogate (stored as U+FFFD)`;
  // The usual source: text in Windows-1252 decoded as Latin-1, whose dashes and quotes land on U+0080-U+009F.
  if (character >= '\u0080') return `${code}, a C1 control character (Windows-1252 punctuation read as Latin-1 becomes one)`;
  return `${code}, a control character`;
}

function firstUnseen(article: ArticleInput): { field: string; character: string } | null {
  const fields: [string, string | null | undefined][] = [
    ['title', article.title],
    ['journal_name', article.journal_name],
    ['article_type', article.article_type],
    ['article_doi', article.article_doi],
    ['pubmed_id', article.pubmed_id],
  ];
  for (const [field, text] of fields) {
    const character = text ? UNSEEN.exec(text)?.[0] : undefined;
    if (character !== undefined) return { field, character };
  }
  const lists: [string, readonly string[]][] = [
    ['authors', article.authors],
    ['article_types', article.article_types ?? []],
  ];
  for (const [field, values] of lists) {
    for (const value of values) {
      const character = UNSEEN.exec(value)?.[0];
      if (character !== undefined) return { field, character };
    }
  }
  for (const [position, paragraph] of article.paragraphs.entries()) {
    const character = UNSEEN.exec(paragraph.text)?.[0] ?? UNSEEN.exec(paragraph.section)?.[0];
    if (character !== undefined) return { field: `paragraph ${position + 1}`, character };
  }
  return null;
}
