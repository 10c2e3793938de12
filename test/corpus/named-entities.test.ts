/**
 * JATS and PubMed files that declare their DTD may name characters from its ISO 8879 and MathML entity
 * sets (&eacute;, &InvisibleTimes;, ...); the parser reads no DTD, so the readers know these names
 * themselves, and any other name still ends the file as malformed.
 */
import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate } from '../../src/text/unicode.js';
import { articlesOf, errorsOf, fixtureDir, readAll, readOne, writeFixture } from './fixtures.js';

const JATS_ARTICLE = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Publishing DTD v1.2 20190208//EN" "JATS-journalpublishing1.dtd">
<article xmlns:mml="http://www.w3.org/1998/Math/MathML" article-type="r&eacute;ponse">
<front>
  <article-meta>
    <article-id pub-id-type="pmid">101</article-id>
    <title-group><article-title>Caf&eacute; &alpha;-waves &mdash; a study&hellip;</article-title></title-group>
    <contrib-group>
      <contrib contrib-type="author"><name><surname>Gonz&aacute;lez</surname><given-names>Jos&eacute;</given-names></name></contrib>
      <contrib contrib-type="author"><string-name>Bj&ouml;rn &Aring;str&ouml;m</string-name></contrib>
    </contrib-group>
  </article-meta>
</front>
<body>
  <p>For x &le; y and x &ne; z, f&prime;(x) &ge; 0 &hellip;</p>
  <p>The product <inline-formula><mml:math><mml:mi>a</mml:mi><mml:mo>&InvisibleTimes;</mml:mo><mml:mi>b</mml:mi></mml:math></inline-formula> &amp; &lt;more&gt;.</p>
  <p>The last paragraph.</p>
</body>
</article>
`;

/** An article with no named character but the one in its paragraph. */
function jatsWithParagraph(paragraph: string): string {
  return `<?xml version="1.0"?>
<article><front><article-meta><title-group><article-title>Title</article-title></title-group></article-meta></front>
<body><p>${paragraph}</p></body></article>
`;
}

function pubmedRecord(pmid: string, title: string, author: string, abstract: string): string {
  return `
  <PubmedArticle>
    <MedlineCitation Status="MEDLINE" Owner="NLM">
      <PMID Version="1">${pmid}</PMID>
      <Article PubModel="Print">
        <Journal><Title>A journal</Title></Journal>
        <ArticleTitle>${title}</ArticleTitle>
        <Abstract>${abstract}</Abstract>
        <AuthorList CompleteYN="Y"><Author ValidYN="Y">${author}</Author></AuthorList>
        <PublicationTypeList><PublicationType UI="D016428">Journal Article</PublicationType></PublicationTypeList>
      </Article>
    </MedlineCitation>
  </PubmedArticle>`;
}

function pubmedSet(...records: string[]): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2019//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_190101.dtd">
<PubmedArticleSet>${records.join('')}
</PubmedArticleSet>
`;
}

const PLAIN_AUTHOR = '<LastName>Smith</LastName><ForeName>Ann</ForeName>';
const PLAIN_ABSTRACT = '<AbstractText>Plain.</AbstractText>';

async function readFile(name: string, content: string, format: 'jats' | 'pubmed') {
  const file = await writeFixture(await fixtureDir(), name, content);
  return { file, events: await readAll(file, format) };
}

describe('named character references in XML input', () => {
  it('reads a JATS article that names ISO and MathML characters whole, attributes included', async () => {
    const article = await readOne(await writeFixture(await fixtureDir(), 'article.nxml', JATS_ARTICLE), 'jats');
    expect(article.article_type).toBe('réponse');
    expect(article.title).toBe('Café α-waves — a study…');
    expect(article.authors).toEqual(['José González', 'Björn Åström']);
    expect(article.paragraphs.map((paragraph) => paragraph.text)).toEqual([
      'For x ≤ y and x ≠ z, f′(x) ≥ 0 …',
      'The product a\u2062b & <more>.',
      'The last paragraph.',
    ]);
  });

  it('reads a PubMed record with a named character in its author, and the records after it', async () => {
    const { events } = await readFile(
      'set.xml',
      pubmedSet(
        pubmedRecord(
          '1',
          'First',
          '<LastName>M&uuml;ller</LastName><ForeName>J&ouml;rg</ForeName>',
          '<AbstractText Label="R&Eacute;SULTATS">Tout va bien.</AbstractText>',
        ),
        pubmedRecord('2', 'Second', PLAIN_AUTHOR, PLAIN_ABSTRACT),
      ),
      'pubmed',
    );
    expect(errorsOf(events)).toEqual([]);
    expect(articlesOf(events).map((article) => [article.article_id, article.authors, article.paragraphs[0].text])).toEqual([
      ['1', ['Jörg Müller'], 'Résultats: Tout va bien.'],
      ['2', ['Ann Smith'], 'Plain.'],
    ]);
  });

  it('still ends the file at a name it does not know, naming it, and keeps the records before', async () => {
    const { file, events } = await readFile(
      'set.xml',
      pubmedSet(
        pubmedRecord('1', 'First', PLAIN_AUTHOR, PLAIN_ABSTRACT),
        pubmedRecord('2', 'A typo: &eacutee;', PLAIN_AUTHOR, PLAIN_ABSTRACT),
        pubmedRecord('3', 'Third', PLAIN_AUTHOR, PLAIN_ABSTRACT),
      ),
      'pubmed',
    );
    expect(articlesOf(events).map((article) => article.article_id)).toEqual(['1']);
    const errors = errorsOf(events);
    expect(errors).toHaveLength(1);
    expect(errors[0].source.file).toBe(file);
    expect(errors[0].message).toMatch(
      /^malformed XML at line \d+, column \d+ inside <PubmedArticleSet\/PubmedArticle\/MedlineCitation\/Article\/ArticleTitle>: undefined entity &eacutee; \(neither one of XML's five nor an HTML5 named character reference\); the rest of the file is skipped$/,
    );
  });

  it('knows no name from outside the HTML5 list, even one every JavaScript object has', async () => {
    const { events } = await readFile('article.nxml', jatsWithParagraph('a &constructor; b'), 'jats');
    expect(articlesOf(events)).toEqual([]);
    expect(errorsOf(events).map((error) => error.message)).toEqual([expect.stringContaining('undefined entity &constructor; (')]);
  });

  it('shortens a very long unknown name in the message', async () => {
    const name = 'x'.repeat(100);
    const { events } = await readFile('article.nxml', jatsWithParagraph(`&${name};`), 'jats');
    const message = errorsOf(events)[0].message;
    expect(message).toContain(`undefined entity &${'x'.repeat(64)}…; (`);
    expect(message).not.toContain('x'.repeat(65));
  });

  it('shortens a long name by whole characters, never half of an astral one', async () => {
    const name = `${'x'.repeat(63)}\u{1D4B3}${'x'.repeat(10)}`;
    const { events } = await readFile('article.nxml', jatsWithParagraph(`&${name};`), 'jats');
    const message = errorsOf(events)[0].message;
    expect(message).toContain(`undefined entity &${'x'.repeat(63)}\u{1D4B3}…; (`);
    expect(hasLoneSurrogate(message)).toBe(false);
  });
});
