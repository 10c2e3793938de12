/** Recognising an input file's format from its first bytes. */
import { BrokenGzipError, InvalidUtf8Error, readText } from './input.js';
import type { InputFormat } from './types.js';

/**
 * Enough text to see past an XML prolog and DOCTYPE. A JSON line may be
 * longer than this; its field names are then read from the truncated line.
 */
const SNIFF_CHARS = 64 * 1024;

export async function detectFormat(file: string): Promise<InputFormat> {
  const { head, notUtf8 } = await readHead(file);
  const trimmed = head.trimStart();
  const format = trimmed.startsWith('<') ? xmlFormat(trimmed) : trimmed.startsWith('{') ? jsonFormat(trimmed) : null;
  if (format) return format;
  // UTF-16 text reads as NUL bytes between its letters, or (after a byte-order mark) as no UTF-8 at all.
  if (head.includes('\u0000') || (notUtf8 && trimmed === '')) {
    throw new Error(`Cannot read ${file}: it is not UTF-8 (UTF-16, say: NUL bytes or a byte-order mark at its start); inputs are read as UTF-8, so convert it first (iconv -f UTF-16 -t UTF-8)`);
  }
  throw new Error(
    `Cannot tell the format of ${file}: expected JSON lines with "article_id"/"paragraphs" (articles-jsonl) ` +
      `or "_id", "title" and "text" (a beir corpus; a BEIR queries file has no "title" and is not an input), or XML with <PubmedArticleSet>/<PubmedArticle> or <MedlineCitationSet>/<MedlineCitation> (pubmed) or <article> (jats)`,
  );
}

/** The first SNIFF_CHARS characters of `file`, and whether its bytes stopped being UTF-8 before them. */
async function readHead(file: string): Promise<{ head: string; notUtf8: boolean }> {
  let head = '';
  let notUtf8 = false;
  try {
    for await (const text of readText(file)) {
      head += text;
      if (head.length >= SNIFF_CHARS) break;
    }
  } catch (error) {
    // The text before bytes that are not UTF-8, or before a cut in gzipped data, still tells the
    // format; the reader then keeps the records before it and reports the break.
    notUtf8 = error instanceof InvalidUtf8Error;
    const readable = notUtf8 || (error instanceof BrokenGzipError && head !== '');
    if (!readable) throw error;
  }
  return { head: head.slice(0, SNIFF_CHARS), notUtf8 };
}

function xmlFormat(head: string): InputFormat | null {
  // A MEDLINE update file may hold only <DeleteCitation>s, so the set's own name counts, not just its records'.
  if (/<(PubmedArticleSet|PubmedArticle|MedlineCitationSet|MedlineCitation)[\s>]/.test(head)) return 'pubmed';
  if (/<(article|pmc-articleset)[\s>]/.test(head)) return 'jats';
  return null;
}

function jsonFormat(head: string): InputFormat | null {
  const firstLine = head.split('\n', 1)[0] ?? '';
  const keys = topLevelKeys(firstLine);
  // A BEIR queries file has "_id" and "text" too, but no "title": read as a corpus, its queries would be indexed as documents.
  if (keys.has('_id') && keys.has('title') && keys.has('text')) return 'beir';
  if (keys.has('article_id') || keys.has('paragraphs')) return 'articles-jsonl';
  return null;
}

function topLevelKeys(line: string): Set<string> {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return new Set(Object.keys(value));
    return new Set();
  } catch {
    // A line cut off by the sniff limit: fall back to the names of its fields.
    return new Set([...line.matchAll(/"((?:[^"\\]|\\.)*)"\s*:/g)].map((match) => match[1]));
  }
}
