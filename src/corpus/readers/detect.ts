/** Recognising an input file's format from its first bytes. */
import path from 'node:path';
import { SEGMENT_MAGIC, STORED_MAGIC } from '../../search/manifest.js';
import { BrokenGzipError, InvalidUtf8Error, isGzippedFile, readChunks, readText } from './input.js';
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
  if (trimmed === '' && !notUtf8) {
    const empty = head === '' ? `empty${(await isGzippedFile(file)) ? ' once gunzipped' : ''}` : 'only white space';
    throw new Error(`Cannot read ${file}: it is ${empty}, with no records to read`);
  }
  // Binary files read as no UTF-8, or hold NUL bytes: named before the UTF-16 advice, which would send them to iconv.
  const signature = await firstBytes(file);
  const binary = describeBinary(file, signature);
  if (binary !== null) throw new Error(`Cannot read ${file}: it is ${binary}`);
  // UTF-16 text reads as NUL bytes between its letters, or (after a byte-order mark) as no UTF-8 at all.
  if (head.includes('\u0000') || (notUtf8 && trimmed === '')) {
    if (!looksLikeUtf16(signature.bytes)) throw new Error(`Cannot read ${file}: it is binary data, not text (inputs are JSON lines or XML, in UTF-8)`);
    throw new Error(
      `Cannot read ${file}: it is not UTF-8 (UTF-16, say: NUL bytes or a byte-order mark at its start); inputs are read as UTF-8, so convert it first (iconv -f UTF-16 -t UTF-8)`,
    );
  }
  if (/^\[\s*[{\]]/.test(trimmed)) {
    throw new Error(`Cannot read ${file}: it is a JSON array; inputs are JSON lines, one object per line: convert it first (jq -c '.[]' ${file} > ${jsonLinesName(file)})`);
  }
  throw new Error(
    `Cannot tell the format of ${file}: expected JSON lines with "article_id"/"paragraphs" (articles-jsonl) ` +
      `or "_id", "title" and "text" (a beir corpus; a BEIR queries file has no "title" and is not an input), or XML with <PubmedArticleSet>/<PubmedArticle> or <MedlineCitationSet>/<MedlineCitation> (pubmed) or <article> (jats)`,
  );
}

/** Where to write the JSON lines of a JSON array file: its name with .jsonl for its extension, never its own name. */
function jsonLinesName(file: string): string {
  const { dir, name, ext } = path.parse(file);
  return path.join(dir, ext === '.jsonl' ? `${name}.lines.jsonl` : `${name}.jsonl`);
}

/** Bytes enough for every signature below (a tar archive's "ustar" is at 257). */
const SIGNATURE_BYTES = 512;

/** The first SIGNATURE_BYTES of `file` as the readers see it (gunzipped), and whether it was gzipped. */
async function firstBytes(file: string): Promise<Signature> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of readChunks(file)) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= SIGNATURE_BYTES) break;
    }
  } catch (error) {
    // Gzipped data cut short: what was gunzipped before the cut still shows what it is.
    if (!(error instanceof BrokenGzipError)) throw error;
  }
  return { bytes: Buffer.concat(chunks).subarray(0, SIGNATURE_BYTES), gzipped: await isGzippedFile(file) };
}

/**
 * UTF-16 text: a byte-order mark, or (for text mostly of ASCII) a NUL in every other byte. Random bytes hold NULs
 * too, now and then, so a few are not enough: the UTF-16 advice would send their owner to iconv for nothing.
 */
function looksLikeUtf16(bytes: Buffer): boolean {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) return true;
  const pairs = Math.floor(bytes.length / 2);
  let evenNuls = 0;
  let oddNuls = 0;
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    if (bytes[i] === 0) evenNuls++;
    if (bytes[i + 1] === 0) oddNuls++;
  }
  return pairs > 0 && Math.max(evenNuls, oddNuls) >= pairs / 2;
}

interface Signature {
  bytes: Buffer;
  gzipped: boolean;
}

const NOT_AN_ARTICLE_FILE = 'not an article file (inputs are JSON lines or XML)';
const ONLY_GZIP = 'only gzip is read as it is';
const PART_OF_AN_INDEX = 'part of an index, not an input (an index is given as --index, not --input)';

/**
 * Files people find beside their articles, by the bytes they start with (after gunzipping), and what
 * to say of each. Their bytes are no UTF-8, and often hold NUL bytes: named for what they are, they are not taken
 * for UTF-16.
 */
const SIGNATURES: { at: number; magic: Buffer; says: (file: string, gzipped: boolean) => string }[] = [
  {
    at: 0,
    magic: Buffer.from('PK\x03\x04', 'latin1'),
    says: () => `a ZIP archive (a .docx, .xlsx or .epub is one too): ${NOT_AN_ARTICLE_FILE}; extract the articles from it first (unzip)`,
  },
  { at: 0, magic: Buffer.from('PK\x05\x06', 'latin1'), says: () => `an empty ZIP archive: ${NOT_AN_ARTICLE_FILE}` },
  {
    at: 257,
    magic: Buffer.from('ustar', 'latin1'),
    says: (file, gzipped) =>
      `a ${gzipped ? 'gzipped tar archive (.tar.gz)' : 'tar archive'}: ${NOT_AN_ARTICLE_FILE}; extract it first (tar -x${gzipped ? 'z' : ''}f ${file}) and give its folder`,
  },
  { at: 0, magic: Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), says: (file) => `xz-compressed (${ONLY_GZIP}): decompress it first (xz -dk ${file})` },
  { at: 0, magic: Buffer.from('BZh', 'latin1'), says: (file) => `bzip2-compressed (${ONLY_GZIP}): decompress it first (bunzip2 -k ${file})` },
  { at: 0, magic: Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), says: (file) => `zstd-compressed (${ONLY_GZIP}): decompress it first (zstd -d ${file})` },
  { at: 0, magic: Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]), says: () => `a 7z archive: ${NOT_AN_ARTICLE_FILE}; extract it first` },
  { at: 0, magic: Buffer.from('%PDF-', 'latin1'), says: () => `a PDF document: ${NOT_AN_ARTICLE_FILE}; give the article's JATS XML, or its text as articles-jsonl` },
  { at: 0, magic: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), says: () => `a PNG image: ${NOT_AN_ARTICLE_FILE}` },
  { at: 0, magic: Buffer.from([0xff, 0xd8, 0xff]), says: () => `a JPEG image: ${NOT_AN_ARTICLE_FILE}` },
  { at: 0, magic: Buffer.from('GIF8', 'latin1'), says: () => `a GIF image: ${NOT_AN_ARTICLE_FILE}` },
  { at: 0, magic: Buffer.from('II*\x00', 'latin1'), says: () => `a TIFF image: ${NOT_AN_ARTICLE_FILE}` },
  { at: 0, magic: Buffer.from('MM\x00*', 'latin1'), says: () => `a TIFF image: ${NOT_AN_ARTICLE_FILE}` },
  { at: 0, magic: Buffer.from(SEGMENT_MAGIC, 'latin1'), says: () => `a litserve segment file (.seg), ${PART_OF_AN_INDEX}` },
  { at: 0, magic: Buffer.from(STORED_MAGIC, 'latin1'), says: () => `a litserve stored-fields file (.stored), ${PART_OF_AN_INDEX}` },
];

/** What the binary `file` starting with `bytes` is, or null for bytes of no kind known here. */
function describeBinary(file: string, { bytes, gzipped }: Signature): string | null {
  const found = SIGNATURES.find(({ at, magic }) => bytes.subarray(at, at + magic.length).equals(magic));
  return found === undefined ? null : found.says(file, gzipped);
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
