/**
 * An XML file read as a format it is not (a JATS article with --format pubmed, a PubMed set with
 * --format jats) gives no record; it is reported and counted as a skipped file, as a file whose
 * format cannot be detected is, rather than read as an empty file of that format.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingest } from '../../src/corpus/ingest.js';
import { tempDir } from '../search/helpers.js';
import { articlesOf, fixtureDir, readAll, writeFixture } from './fixtures.js';

const PUBMED = `<?xml version="1.0"?>
<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>T</ArticleTitle>
<Abstract><AbstractText>Grid cells.</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>`;
const JATS = `<?xml version="1.0"?>
<article article-type="research-article"><front><article-meta><article-id pub-id-type="pmid">2</article-id>
<title-group><article-title>T</article-title></title-group></article-meta></front>
<body><p>Place cells.</p></body></article>`;

const NOT_PUBMED = 'not PubMed XML: its root element is <article>, not <PubmedArticleSet>, <PubmedArticle>, <MedlineCitationSet> or <MedlineCitation>';
const NOT_JATS = 'not JATS XML: its root element is <PubmedArticleSet>, not <article> or <pmc-articleset>';

describe('an XML reader given a file of another format', () => {
  it('gives one unrecognised event naming the root element, and nothing else', async () => {
    const dir = await fixtureDir();
    const jats = await writeFixture(dir, 'a.nxml', JATS);
    const pubmed = await writeFixture(dir, 'b.xml', PUBMED);
    expect(await readAll(jats, 'pubmed')).toEqual([{ kind: 'unrecognised', source: { file: jats }, message: NOT_PUBMED }]);
    expect(await readAll(pubmed, 'jats')).toEqual([{ kind: 'unrecognised', source: { file: pubmed }, message: NOT_JATS }]);
    // Broken further on, it is still the wrong format that is said, not where its XML breaks.
    const broken = await writeFixture(dir, 'broken.nxml', JATS.replace('</body>', '</bod>'));
    expect(await readAll(broken, 'pubmed')).toEqual([{ kind: 'unrecognised', source: { file: broken }, message: NOT_PUBMED }]);
  });

  it('says the same of a file with no element at all (text, or empty), but names bytes that are not UTF-8 as such', async () => {
    const dir = await fixtureDir();
    const text = await writeFixture(dir, 'SOURCES.txt', 'Downloaded from PMC on 2024-01-01.\n');
    const empty = await writeFixture(dir, 'empty.xml', '');
    const noElement = 'not PubMed XML: no XML element in it (its root would be <PubmedArticleSet>, <PubmedArticle>, <MedlineCitationSet> or <MedlineCitation>)';
    expect(await readAll(text, 'pubmed')).toEqual([{ kind: 'unrecognised', source: { file: text }, message: noElement }]);
    expect(await readAll(empty, 'pubmed')).toEqual([{ kind: 'unrecognised', source: { file: empty }, message: noElement }]);
    const utf16 = await writeFixture(dir, 'utf16.xml', Buffer.from('\ufeff<PubmedArticleSet/>', 'utf16le'));
    expect(await readAll(utf16, 'pubmed')).toEqual([expect.objectContaining({ kind: 'error', message: expect.stringContaining('not valid UTF-8') })]);
  });

  it('reads records under another root, and says nothing of an empty set of its own format', async () => {
    const dir = await fixtureDir();
    const wrapped = await writeFixture(dir, 'wrapped.xml', PUBMED.replace(/PubmedArticleSet/g, 'Export'));
    expect(articlesOf(await readAll(wrapped, 'pubmed')).map((article) => article.article_id)).toEqual(['1']);
    const empty = await writeFixture(dir, 'empty.xml', '<?xml version="1.0"?>\n<PubmedArticleSet></PubmedArticleSet>\n');
    expect(await readAll(empty, 'pubmed')).toEqual([]);
  });
});

describe('ingest with --format of a folder holding files of another format', () => {
  it('reports each such file, with why, and counts it as a skipped file', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const papers = path.join(dir, 'papers');
      const jats = await writeFixture(papers, 'a.nxml', JATS);
      await writeFixture(papers, 'b.xml', PUBMED);
      const skipped: string[] = [];
      const report = await ingest({ inputs: [papers], indexDir: path.join(dir, 'index'), format: 'pubmed', onSkip: (source, message) => skipped.push(`${source.file}: ${message}`) });
      expect(report).toMatchObject({ files: 2, skippedFiles: 1, read: 1, indexed: 1, skipped: 0 });
      expect(skipped).toEqual([`${jats}: ${NOT_PUBMED} (every input is read as --format pubmed; without --format each file's format is detected)`]);
    } finally {
      await cleanup();
    }
  });

  it('reads a detected MEDLINE file of bare <MedlineCitation> records rather than skipping it', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      // Detected as pubmed by its <MedlineCitation>, a record of its own outside a <PubmedArticle> (test/corpus/medline-citation.test.ts).
      const citations = await writeFixture(dir, 'medline.xml', '<MedlineCitationSet><MedlineCitation><PMID>3</PMID></MedlineCitation></MedlineCitationSet>');
      const skipped: string[] = [];
      const report = await ingest({ inputs: [citations], indexDir: path.join(dir, 'index'), onSkip: (source, message) => skipped.push(`${source.file}: ${message}`) });
      expect(report).toMatchObject({ files: 1, skippedFiles: 0, read: 1, skipped: 1 });
      expect(skipped).toEqual([`${citations}: MedlineCitation #1 (PMID 3) has no ArticleTitle`]);
    } finally {
      await cleanup();
    }
  });
});
