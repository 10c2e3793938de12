import { realpath, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { detectFormat, expandInputs } from '../../src/corpus/readers/index.js';
import { INVALID_UTF8, InvalidUtf8Error, READ_CHUNK_BYTES, readText } from '../../src/corpus/readers/input.js';
import { lineTooLongMessage, readLines, type TextLine } from '../../src/corpus/readers/lines.js';
import { articlesOf, errorsOf, fixtureDir, readAll, writeFixture } from './fixtures.js';

const ARTICLE_LINE = JSON.stringify({ article_id: 'a', title: 'T', paragraphs: [{ section: 'S', text: 'x' }] });
const PUBMED = `<?xml version="1.0"?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2019//EN" "pubmed_190101.dtd">
<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>T</ArticleTitle>
<Abstract><AbstractText>Text.</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>`;
const JATS = `<?xml version="1.0"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.0 20120330//EN" "JATS-archivearticle1.dtd">
<article article-type="research-article"><front><article-meta><title-group><article-title>T</article-title></title-group></article-meta></front>
<body><p>x</p></body></article>`;

async function gather(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for await (const file of expandInputs(paths)) files.push(file);
  return files;
}

describe('detectFormat', () => {
  it('recognises each format from the start of the file', async () => {
    const dir = await fixtureDir();
    const cases: [string, string, string][] = [
      ['a.jsonl', ARTICLE_LINE + '\n', 'articles-jsonl'],
      ['b.jsonl', '\n' + JSON.stringify({ _id: '1', title: '', text: 'x', metadata: {} }) + '\n', 'beir'],
      ['c.xml', PUBMED, 'pubmed'],
      ['d.xml', '<MedlineCitation Status="MEDLINE"><PMID>1</PMID></MedlineCitation>', 'pubmed'],
      ['e.nxml', JATS, 'jats'],
      ['f.xml', '<pmc-articleset><article/></pmc-articleset>', 'jats'],
    ];
    for (const [name, content, format] of cases) {
      expect(await detectFormat(await writeFixture(dir, name, content)), name).toBe(format);
    }
  });

  it('reads field names from a first line longer than the sniffed part', async () => {
    const dir = await fixtureDir();
    const long = JSON.stringify({ article_id: 'a', title: 'T', paragraphs: [{ section: 'S', text: 'x'.repeat(200_000) }] });
    expect(await detectFormat(await writeFixture(dir, 'long.jsonl', long))).toBe('articles-jsonl');
  });

  it('sees through gzip', async () => {
    const dir = await fixtureDir();
    expect(await detectFormat(await writeFixture(dir, 'set.xml.gz', gzipSync(PUBMED)))).toBe('pubmed');
  });

  it('recognises a small gzipped file cut short from the text before the cut, so its whole records are still read', async () => {
    const dir = await fixtureDir();
    const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ _id: `d${i}`, title: '', text: `text ${i}` })).join('\n');
    const zipped = gzipSync(lines);
    const file = await writeFixture(dir, 'cut.jsonl.gz', zipped.subarray(0, zipped.length / 2));
    expect(await detectFormat(file)).toBe('beir');
    const events = await readAll(file, 'beir');
    expect(articlesOf(events).length).toBeGreaterThan(0);
    expect(errorsOf(events).map((event) => event.message)).toEqual([expect.stringMatching(/gzip data is damaged or cut short/)]);
    // Cut before any text: nothing tells the format, and the message says why.
    const stump = await writeFixture(dir, 'stump.jsonl.gz', zipped.subarray(0, 12));
    await expect(detectFormat(stump)).rejects.toThrow(/gzip data is damaged or cut short \(unexpected end of file\)/);
  });

  it('says that a UTF-16 file is not UTF-8, with or without its byte-order mark', async () => {
    const dir = await fixtureDir();
    const line = `${JSON.stringify({ article_id: 'a1', title: 'T', paragraphs: [{ section: 'S', text: 'x' }] })}\n`;
    const withMark = await writeFixture(dir, 'bom.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(line, 'utf16le')]));
    const withoutMark = await writeFixture(dir, 'plain16.jsonl', Buffer.from(line, 'utf16le'));
    for (const file of [withMark, withoutMark]) await expect(detectFormat(file)).rejects.toThrow(`Cannot read ${file}: it is not UTF-8 (UTF-16, say`);
  });

  it('names the file it cannot recognise', async () => {
    const dir = await fixtureDir();
    const csv = await writeFixture(dir, 'table.csv', 'a,b\n1,2\n');
    await expect(detectFormat(csv)).rejects.toThrow(`Cannot tell the format of ${csv}`);
    const other = await writeFixture(dir, 'other.json', '{"name": "x"}\n');
    await expect(detectFormat(other)).rejects.toThrow(other);
    const html = await writeFixture(dir, 'page.html', '<html><body/></html>');
    await expect(detectFormat(html)).rejects.toThrow(html);
  });
});

describe('expandInputs', () => {
  it('yields files as given and directory contents sorted and recursively, without hidden entries', async () => {
    const dir = await fixtureDir();
    const tree = path.join(dir, 'tree');
    for (const name of ['b.xml', 'a.jsonl', '.hidden', 'sub/c.nxml', 'sub/.DS_Store', '.git/config', 'z/y/x.xml']) {
      await writeFixture(tree, name, 'x');
    }
    const lone = await writeFixture(dir, 'lone.jsonl', 'x');
    expect(await gather([lone, tree])).toEqual([
      lone,
      path.join(tree, 'a.jsonl'),
      path.join(tree, 'b.xml'),
      path.join(tree, 'sub', 'c.nxml'),
      path.join(tree, 'z', 'y', 'x.xml'),
    ]);
  });

  it('throws a clear error for a path that does not exist', async () => {
    const dir = await fixtureDir();
    const missing = path.join(dir, 'nope');
    await expect(gather([missing])).rejects.toThrow(`input ${missing}: no such file or folder`);
  });

  it('walks a directory once however many links lead to it (a link to an ancestor loops), and reports a dangling link and goes on', async () => {
    const dir = await fixtureDir();
    const tree = path.join(dir, 'linked');
    const inner = await writeFixture(tree, 'sub/a.jsonl', 'x');
    await symlink('..', path.join(tree, 'sub', 'up'));
    await symlink(path.join(tree, 'sub'), path.join(tree, 'again'));
    await symlink(path.join(dir, 'gone.jsonl'), path.join(tree, 'sub', 'dangling.jsonl'));
    const reported: [string, string][] = [];
    const files: string[] = [];
    for await (const file of expandInputs([tree, tree], (file, message) => reported.push([file, message]))) files.push(file);
    // `again` sorts first and leads to sub: sub's file is yielded once, under the first path reaching it.
    expect(files).toEqual([path.join(tree, 'again', 'a.jsonl')]);
    expect(await realpath(files[0]!)).toBe(await realpath(inner));
    expect(reported).toEqual([[path.join(tree, 'again', 'dangling.jsonl'), 'a symbolic link to nothing: skipped']]);
  });
});

describe('expandInputs over a file reached by several paths', () => {
  it('yields it once: given twice, given and inside a folder given, or linked beside itself', async () => {
    const dir = await fixtureDir();
    const tree = path.join(dir, 'tree');
    const notes = await writeFixture(tree, 'notes.txt', 'x');
    await symlink(notes, path.join(tree, 'same-notes.txt'));
    const reported: string[] = [];
    const files: string[] = [];
    for await (const file of expandInputs([notes, tree, notes, path.join(tree, '.', 'notes.txt')], (file, message) => reported.push(`${file}: ${message}`))) files.push(file);
    // Each path had been yielded, so the file was read (and, unrecognised, reported skipped) four times.
    expect(files).toEqual([notes]);
    expect(reported).toEqual([]);
  });

  it('does not report a link out of a folder to a file given as an input itself', async () => {
    const dir = await fixtureDir();
    const outside = await writeFixture(dir, 'outside/a.jsonl', ARTICLE_LINE);
    const tree = path.join(dir, 'tree');
    const inner = await writeFixture(tree, 'b.jsonl', ARTICLE_LINE);
    const link = path.join(tree, 'a-link.jsonl');
    await symlink(outside, link);
    const reported: string[] = [];
    const files: string[] = [];
    for await (const file of expandInputs([tree, outside], (file) => reported.push(file))) files.push(file);
    expect(files).toEqual([inner, outside]);
    expect(reported).toEqual([]);
    // Not given, it is reported as before.
    for await (const file of expandInputs([tree], (file) => reported.push(file))) files.push(file);
    expect(reported).toEqual([link]);
  });
});

describe('input handling shared by the readers', () => {
  it('reports consumed bytes adding up to the file size', async () => {
    const dir = await fixtureDir();
    const content = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ article_id: `a${i}`, title: 'T', paragraphs: [{ section: 'S', text: 'word '.repeat(20) }] }),
    ).join('\n');
    const file = await writeFixture(dir, 'many.jsonl', content);
    const deltas: number[] = [];
    const events = await readAll(file, 'articles-jsonl', { onBytes: (n) => deltas.push(n) });
    expect(articlesOf(events).map((a) => a.article_id)).toEqual(Array.from({ length: 3000 }, (_, i) => `a${i}`));
    expect(events.at(-1)?.source.line).toBe(3000);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.reduce((a, b) => a + b, 0)).toBe((await stat(file)).size);
  });

  it('reads gzipped files and counts their compressed bytes', async () => {
    const dir = await fixtureDir();
    const file = await writeFixture(dir, 'set.xml.gz', gzipSync(PUBMED));
    let bytes = 0;
    const events = await readAll(file, 'pubmed', { onBytes: (n) => (bytes += n) });
    expect(articlesOf(events).map((a) => a.article_id)).toEqual(['1']);
    expect(bytes).toBe((await stat(file)).size);
  });

  it('turns a corrupt gzip file into an error event', async () => {
    const dir = await fixtureDir();
    const zipped = gzipSync(PUBMED);
    const file = await writeFixture(dir, 'cut.xml.gz', zipped.subarray(0, zipped.length - 12));
    const events = await readAll(file, 'pubmed');
    expect(events.at(-1)).toMatchObject({ kind: 'error', source: { file } });
    expect(errorsOf(events)).toHaveLength(1);
  });

  it('throws when the file does not exist', async () => {
    const dir = await fixtureDir();
    await expect(readAll(path.join(dir, 'missing.xml'), 'jats')).rejects.toThrow(/ENOENT/);
  });

  it('handles multi-byte characters split across read chunks', async () => {
    const dir = await fixtureDir();
    const text = 'é'.repeat(100_000);
    const file = await writeFixture(
      dir,
      'utf8.jsonl',
      JSON.stringify({ article_id: 'u', title: 'Zambézia', paragraphs: [{ section: 'S', text }] }),
    );
    const [article] = articlesOf(await readAll(file, 'articles-jsonl'));
    expect(article.paragraphs[0].text).toBe(text);
    expect(article.title).toBe('Zambézia');
  });
});

describe('readLines', () => {
  it('gives lines longer than many read chunks whole, with empty lines, CRLF and a last line without a break', async () => {
    const dir = await fixtureDir();
    const long = `${'word '.repeat(40_000)}é${'x'.repeat(50_000)}`;
    const file = await writeFixture(dir, 'long-lines.txt', `${long}\r\n\n${long}\nshort\r\nlast`);
    const lines: TextLine[] = [];
    for await (const line of readLines(file)) lines.push(line);
    expect(lines.map((line) => line.number)).toEqual([1, 2, 3, 4, 5]);
    expect(lines.map((line) => line.text)).toEqual([long, '', long, 'short', 'last']);
    expect(lines.some((line) => line.invalidUtf8)).toBe(false);
  });

  it('tells a line that is not valid UTF-8 apart, and drops a byte-order mark only where a file starts', async () => {
    const dir = await fixtureDir();
    const bytes = Buffer.concat([Buffer.from('\ufeffcafé\n'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), Buffer.from('ok \ufffd kept\n\ufeffinner')]);
    const file = await writeFixture(dir, 'utf8.txt', bytes);
    const lines: TextLine[] = [];
    for await (const line of readLines(file)) lines.push(line);
    expect(lines.map(({ text, invalidUtf8 }) => [text, invalidUtf8])).toEqual([
      ['café', false],
      ['caf\ufffd', true],
      ['ok \ufffd kept', false],
      ['\ufeffinner', false],
    ]);
  });

  it('passes over a line longer than maxLineBytes, in or across read chunks, and goes on with the next', async () => {
    const dir = await fixtureDir();
    const limit = 3 * READ_CHUNK_BYTES;
    const over = 'y'.repeat(limit + 1);
    const file = await writeFixture(dir, 'long-lines.txt', `first\n${'x'.repeat(limit)}\n${over}\nafter\n${over}`);
    const lines: TextLine[] = [];
    for await (const line of readLines(file, { maxLineBytes: limit })) lines.push(line);
    expect(lines.map(({ number, text, tooLong }) => [number, text.length, tooLong])).toEqual([
      [1, 5, false],
      [2, limit, false],
      [3, 0, true],
      [4, 5, false],
      [5, 0, true],
    ]);
  });

  it('makes the JSON lines readers report an overlong line with its number and read the lines after it', async () => {
    const dir = await fixtureDir();
    const article = (id: string, text: string) => JSON.stringify({ article_id: id, title: 'T', paragraphs: [{ section: 'S', text }] });
    const beir = (id: string, text: string) => JSON.stringify({ _id: id, title: 'T', text });
    const limit = 2 * READ_CHUNK_BYTES;
    for (const [format, line] of [['articles-jsonl', article], ['beir', beir]] as const) {
      const file = await writeFixture(dir, `${format}.jsonl`, [line('a', 'x'), line('huge', 'y'.repeat(limit)), line('c', 'z')].join('\n'));
      const events = await readAll(file, format, { maxLineBytes: limit });
      expect(articlesOf(events).map((a) => a.article_id), format).toEqual(['a', 'c']);
      expect(errorsOf(events).map(({ source, message }) => [source.line, message]), format).toEqual([[2, lineTooLongMessage(limit)]]);
    }
    expect(lineTooLongMessage()).toBe('line over 67108864 bytes, the longest a reader keeps');
  });

  it('makes the JSON lines readers report such a line with its number, and read the others', async () => {
    const dir = await fixtureDir();
    const good = JSON.stringify({ article_id: 'a', title: 'T', paragraphs: [{ section: 'S', text: 'x' }] });
    const bad = Buffer.from(JSON.stringify({ article_id: 'b', title: 'caf?', paragraphs: [{ section: 'S', text: 'x' }] }).replace('?', '\u0000'));
    bad[bad.indexOf(0)] = 0xe9;
    const file = await writeFixture(dir, 'mixed.jsonl', Buffer.concat([Buffer.from(`${good}\n`), bad, Buffer.from(`\n${good.replace('"a"', '"c"')}\n`)]));
    const events = await readAll(file, 'articles-jsonl');
    expect(articlesOf(events).map((article) => article.article_id)).toEqual(['a', 'c']);
    expect(errorsOf(events).map(({ source, message }) => [source.line, message])).toEqual([[2, INVALID_UTF8]]);
  });
});


/** The text readText gives before it ends, and the error it ends with, if any. */
async function readWhole(file: string): Promise<{ text: string; error: unknown }> {
  let text = '';
  try {
    for await (const piece of readText(file)) text += piece;
    return { text, error: undefined };
  } catch (error) {
    return { text, error };
  }
}

describe('readText (the XML readers\' input)', () => {
  it('decodes characters of 2, 3 and 4 bytes cut at every chunk boundary, and drops a byte-order mark only where a file starts', async () => {
    const dir = await fixtureDir();
    // Each shift puts a different byte of a character at the chunks' boundaries.
    for (const shift of [0, 1, 2, 3]) {
      const text = `${'a'.repeat(shift)}${'é€𝄞\ufffd'.repeat(Math.ceil((3 * READ_CHUNK_BYTES) / 12))}\ufeff end`;
      const file = await writeFixture(dir, `chars-${shift}.xml`, `\ufeff${text}`);
      expect(await readWhole(file)).toEqual({ text, error: undefined });
    }
  });

  it('gives the text before bytes that are not UTF-8 (a U+FFFD written in the file included), then ends with InvalidUtf8Error', async () => {
    const dir = await fixtureDir();
    const before = `<a>${'x'.repeat(READ_CHUNK_BYTES)} \ufffd kept caf`;
    const cases: [string, Buffer][] = [
      ['a Latin-1 byte', Buffer.concat([Buffer.from(before), Buffer.from([0xe9]), Buffer.from('</a>')])],
      ['a lone continuation byte', Buffer.concat([Buffer.from(before), Buffer.from([0x80]), Buffer.from('</a>')])],
      ['a character cut short (EF BF then ASCII)', Buffer.concat([Buffer.from(before), Buffer.from([0xef, 0xbf, 0x41])])],
      ['a character cut off by the end of the file', Buffer.concat([Buffer.from(before), Buffer.from([0xf0, 0x9d, 0x84])])],
    ];
    for (const [name, bytes] of cases) {
      const file = await writeFixture(dir, 'invalid.xml', bytes);
      const { text, error } = await readWhole(file);
      expect(error, name).toBeInstanceOf(InvalidUtf8Error);
      expect(text, name).toBe(before);
    }
  });

  it('makes the XML readers keep the records before such bytes and report where they are', async () => {
    const dir = await fixtureDir();
    const [head, tail] = PUBMED.split('<PubmedArticle>');
    const second = `<PubmedArticle>${tail.replace('<PMID>1</PMID>', '<PMID>2</PMID>').replace('</PubmedArticleSet>', '')}`;
    const [beforeTitle, afterTitle] = second.split('<ArticleTitle>T');
    const bytes = Buffer.concat([
      Buffer.from(`${head}<PubmedArticle>${tail.replace('</PubmedArticleSet>', '')}\n${beforeTitle}<ArticleTitle>caf`),
      Buffer.from([0xe9]),
      Buffer.from(`${afterTitle}</PubmedArticleSet>`),
    ]);
    const file = await writeFixture(dir, 'latin1.xml', bytes);
    const line = bytes.subarray(0, bytes.indexOf(0xe9)).toString().split('\n').length;
    const events = await readAll(file, 'pubmed');
    expect(articlesOf(events).map((article) => article.article_id)).toEqual(['1']);
    const errors = errorsOf(events);
    expect(errors).toHaveLength(1);
    expect(errors[0].source).toMatchObject({ file, line, element: 'PubmedArticle #2' });
    expect(errors[0].message).toMatch(new RegExp(`^malformed XML at line ${line}, column \\d+ inside <PubmedArticleSet/PubmedArticle/MedlineCitation/Article/ArticleTitle>: not valid UTF-8`));
    expect(await detectFormat(file)).toBe('pubmed');
  });

  it('makes the XML readers end a file at a text run longer than maxTextRun, keeping the records before it', async () => {
    const dir = await fixtureDir();
    const limit = 2 * READ_CHUNK_BYTES;
    const withAbstract = (pmid: string, text: string) => PUBMED.replace('<PMID>1</PMID>', `<PMID>${pmid}</PMID>`).replace('Text.', text);
    const [head] = PUBMED.split('<PubmedArticle>');
    const articleOf = (xml: string) => `<PubmedArticle>${xml.split('<PubmedArticle>')[1]!.replace('</PubmedArticleSet>', '')}`;
    // A run within the limit (spread over chunks; the run counts from the '<' of <AbstractText>) is kept;
    // one over it ends the file there.
    const atLimit = articleOf(withAbstract('1', 'w'.repeat(limit - '<AbstractText>'.length + 1)));
    const overLimit = articleOf(withAbstract('2', 'w'.repeat(limit + 1)));
    const after = articleOf(withAbstract('3', 'Text.'));
    const file = await writeFixture(dir, 'long-text.xml', `${head}${atLimit}${overLimit}${after}</PubmedArticleSet>`);
    const events = await readAll(file, 'pubmed', { maxTextRun: limit });
    expect(articlesOf(events).map((article) => article.article_id)).toEqual(['1']);
    const errors = errorsOf(events);
    expect(errors).toHaveLength(1);
    expect(errors[0].source).toMatchObject({ file, element: 'PubmedArticle #2' });
    expect(errors[0].message).toMatch(new RegExp(`inside <PubmedArticleSet/PubmedArticle/MedlineCitation/Article/Abstract/AbstractText>: over ${limit} characters without markup`));
  });
});
