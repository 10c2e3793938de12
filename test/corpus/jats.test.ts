import { describe, expect, it } from 'vitest';
import { abstractOf } from '../../src/corpus/model.js';
import { articlesOf, errorsOf, fixtureDir, readAll, readOne, writeFixture } from './fixtures.js';

const PROLOG = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.0 20120330//EN" "JATS-archivearticle1.dtd">
`;

interface Parts {
  articleType?: string;
  journalMeta?: string;
  ids?: string;
  title?: string;
  contribs?: string;
  dates?: string;
  abstracts?: string;
  body?: string;
  back?: string;
}

function jats(parts: Parts): string {
  const typeAttribute = parts.articleType === undefined ? '' : ` article-type="${parts.articleType}"`;
  return `${PROLOG}<article xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML"${typeAttribute}>
<front>
  <journal-meta>${parts.journalMeta ?? ''}</journal-meta>
  <article-meta>
    ${parts.ids ?? ''}
    <title-group>${parts.title ?? ''}</title-group>
    <contrib-group>${parts.contribs ?? ''}</contrib-group>
    ${parts.dates ?? ''}
    ${parts.abstracts ?? ''}
  </article-meta>
</front>
<body>${parts.body ?? ''}</body>
<back>${parts.back ?? ''}</back>
</article>
`;
}

const TITLE = '<article-title>A title</article-title>';
const ONE_PARAGRAPH = '<p>Text.</p>';

async function readJatsText(content: string) {
  const dir = await fixtureDir();
  const file = await writeFixture(dir, 'article.nxml', content);
  return { file, events: await readAll(file, 'jats') };
}

async function readJatsArticle(parts: Parts) {
  const dir = await fixtureDir();
  return readOne(await writeFixture(dir, 'article.nxml', jats(parts)), 'jats');
}

describe('jats reader: metadata', () => {
  it('reads title, ids, journal, type and authors', async () => {
    const article = await readJatsArticle({
      articleType: 'review-article',
      journalMeta: `<journal-title-group><journal-title>Journal of <italic>Tests</italic></journal-title></journal-title-group>
        <issn pub-type="ppub">0007-0920</issn><issn pub-type="epub">1532-1827</issn>`,
      ids: `<article-id pub-id-type="pmid">21045829</article-id><article-id pub-id-type="pmc">2994229</article-id>
        <article-id pub-id-type="doi">10.1038/sj.bjc.6605965</article-id>`,
      title: '<article-title>Lysis time in bacteriophage &#x003bb; and H<sub>2</sub>O</article-title><alt-title>Short</alt-title>',
      contribs: `
        <contrib contrib-type="author"><name><surname>Dennehy</surname><given-names>John J</given-names></name><xref ref-type="aff" rid="a1">1</xref></contrib>
        <contrib contrib-type="author"><string-name>Ing-Nang Wang</string-name></contrib>
        <contrib contrib-type="author"><collab>The EPIC <italic>Group</italic><contrib-group><contrib><name><surname>Member</surname><given-names>A</given-names></name></contrib></contrib-group></collab></contrib>
        <contrib contrib-type="editor"><name><surname>Editor</surname><given-names>E</given-names></name></contrib>`,
      abstracts: '<abstract><p>Abstract.</p></abstract>',
    });
    expect(article).toMatchObject({
      article_id: '21045829',
      pubmed_id: '21045829',
      article_doi: '10.1038/sj.bjc.6605965',
      title: 'Lysis time in bacteriophage λ and H2O',
      authors: ['John J Dennehy', 'Ing-Nang Wang', 'The EPIC Group'],
      journal_name: 'Journal of Tests',
      journal_issn: '1532-1827',
      article_type: 'review-article',
      cited_by: null,
      impact_factor: null,
    });
  });

  it('falls back from PMID to DOI to PMC id to the file name for article_id', async () => {
    const dir = await fixtureDir();
    const base = { title: TITLE, body: ONE_PARAGRAPH };
    const cases: [string, string, string][] = [
      ['doi.nxml', '<article-id pub-id-type="doi">10.1/x</article-id><article-id pub-id-type="pmc">55</article-id>', '10.1/x'],
      ['pmc.nxml', '<article-id pub-id-type="pmc">55</article-id>', 'PMC55'],
      ['pmc-prefixed.nxml', '<article-id pub-id-type="pmcid">PMC66</article-id>', 'PMC66'],
      ['pone.0000217.nxml', '<article-id pub-id-type="publisher-id">X</article-id>', 'pone.0000217'],
    ];
    for (const [name, ids, expected] of cases) {
      const article = await readOne(await writeFixture(dir, name, jats({ ...base, ids })), 'jats');
      expect(article.article_id, name).toBe(expected);
      expect(article.pubmed_id, name).toBeNull();
    }
  });

  it('prefers the electronic ISSN, then print, then any valid one', async () => {
    const cases: [string, string | null][] = [
      ['<issn pub-type="ppub">0007-0920</issn><issn publication-format="electronic">1532-1827</issn>', '1532-1827'],
      ['<issn pub-type="ppub">0007-0920</issn><issn>1111-2222</issn>', '0007-0920'],
      ['<issn>  1234-567x  </issn>', '1234-567X'],
      ['<issn pub-type="epub">not an issn</issn><issn pub-type="ppub">0091-6765</issn>', '0091-6765'],
      ['<issn>12345</issn>', null],
    ];
    for (const [journalMeta, expected] of cases) {
      const article = await readJatsArticle({ journalMeta, title: TITLE, body: ONE_PARAGRAPH });
      expect(article.journal_issn, journalMeta).toBe(expected);
    }
  });

  it('prefers the epub date, then ppub, then collection, then any; month names and missing parts', async () => {
    const cases: [string, string | null][] = [
      [
        `<pub-date pub-type="collection"><year>2011</year></pub-date>
         <pub-date pub-type="ppub"><month>Nov</month><year>2010</year></pub-date>
         <pub-date pub-type="epub"><day>2</day><month>8</month><year>2011</year></pub-date>`,
        '2011-08-02',
      ],
      [
        `<pub-date pub-type="collection"><year>2011</year></pub-date>
         <pub-date pub-type="ppub"><month>November</month><year>2010</year></pub-date>`,
        '2010-11-01',
      ],
      ['<pub-date pub-type="collection"><year>2007</year></pub-date>', '2007-01-01'],
      ['<pub-date pub-type="pmc-release"><day>12</day><month>sep</month><year>2012</year></pub-date>', '2012-09-12'],
      [
        `<pub-date date-type="pub" publication-format="print"><day>1</day><month>3</month><year>2022</year></pub-date>
         <pub-date date-type="pub" publication-format="electronic"><day>12</day><month>3</month><year>2019</year></pub-date>`,
        '2019-03-12',
      ],
      // An impossible epub date is skipped in favour of the next candidate.
      [
        `<pub-date pub-type="epub"><day>30</day><month>2</month><year>2023</year></pub-date>
         <pub-date pub-type="ppub"><month>3</month><year>2023</year></pub-date>`,
        '2023-03-01',
      ],
      ['<pub-date pub-type="epub"><season>Spring</season></pub-date>', null],
      ['', null],
    ];
    for (const [dates, expected] of cases) {
      const article = await readJatsArticle({ dates, title: TITLE, body: ONE_PARAGRAPH });
      expect(article.date, dates).toBe(expected);
    }
  });

  it('defaults article_type to research-article and trims it', async () => {
    expect((await readJatsArticle({ title: TITLE, body: ONE_PARAGRAPH })).article_type).toBe('research-article');
    expect((await readJatsArticle({ articleType: ' letter ', title: TITLE, body: ONE_PARAGRAPH })).article_type).toBe(
      'letter',
    );
  });
});

describe('jats reader: paragraphs', () => {
  it('gives nested sections a title path and body-level paragraphs the Body section', async () => {
    const article = await readJatsArticle({
      title: TITLE,
      body: `
        <p>Opening paragraph.</p>
        <sec><title>Methods</title>
          <p>Methods intro.</p>
          <sec><title>Animals</title><p>Mice were used.</p>
            <sec><title>Housing</title><p>Cages.</p></sec>
          </sec>
          <sec><p>Untitled subsection.</p></sec>
          <p>Back in methods.</p>
        </sec>
        <sec sec-type="results"><title>Results</title><p>It worked.</p></sec>`,
    });
    expect(article.paragraphs).toEqual([
      { section: 'Body', text: 'Opening paragraph.' },
      { section: 'Methods', text: 'Methods intro.' },
      { section: 'Methods / Animals', text: 'Mice were used.' },
      { section: 'Methods / Animals / Housing', text: 'Cages.' },
      { section: 'Methods', text: 'Untitled subsection.' },
      { section: 'Methods', text: 'Back in methods.' },
      { section: 'Results', text: 'It worked.' },
    ]);
  });

  it('bounds section names: sections nested deeper than six show the outermost and innermost titles, long titles are cut', async () => {
    const depth = 20;
    const nested = Array.from({ length: depth }, (_, i) => `<sec><title>T${i}</title>`).join('');
    const longTitle = `${'x'.repeat(198)}\u{1F600}${'y'.repeat(800)}`;
    const article = await readJatsArticle({
      title: TITLE,
      body: `${nested}<p>Deepest.</p>${'</sec>'.repeat(depth)}<sec><title>${longTitle}</title><p>Under a long title.</p></sec>`,
    });
    expect(article.paragraphs).toEqual([
      { section: 'T0 / … / T15 / T16 / T17 / T18 / T19', text: 'Deepest.' },
      { section: `${'x'.repeat(198)}…`, text: 'Under a long title.' },
    ]);
  });

  it('keeps the text of inline markup and collapses whitespace', async () => {
    const article = await readJatsArticle({
      title: TITLE,
      body: `<sec><title>Section <italic>Title</italic></title><p>
          CO<sub>2</sub> levels rose by 10<sup>3</sup>-fold
          in <italic>E. coli</italic> [<xref ref-type="bibr" rid="B1">1</xref>].
        </p></sec>`,
    });
    expect(article.paragraphs).toEqual([
      { section: 'Section Title', text: 'CO2 levels rose by 103-fold in E. coli [1].' },
    ]);
  });

  it('leaves out tables, figures, supplementary material, back matter and TeX sources', async () => {
    const article = await readJatsArticle({
      title: TITLE,
      body: `<sec><title>Results</title>
          <p>Kept <inline-formula><alternatives><tex-math>\\alpha</tex-math><mml:math><mml:mi>α</mml:mi></mml:math></alternatives></inline-formula> value.</p>
          <fig id="F1"><label>Figure 1</label><caption><p>Figure caption.</p></caption></fig>
          <table-wrap id="T1"><caption><p>Table caption.</p></caption><table><tr><td><p>cell</p></td></tr></table></table-wrap>
          <p>Text with an inline table <table-wrap><table><tr><td>cell</td></tr></table></table-wrap>around it.</p>
          <supplementary-material><caption><p>Supplement.</p></caption></supplementary-material>
        </sec>`,
      back: `<ack><p>Thanks.</p></ack><ref-list><ref><mixed-citation><article-title>Other</article-title></mixed-citation></ref></ref-list>
        <app-group><app><title>Appendix</title><p>Appendix text.</p></app></app-group>`,
    });
    expect(article.paragraphs).toEqual([
      { section: 'Results', text: 'Kept α value.' },
      { section: 'Results', text: 'Text with an inline table around it.' },
    ]);
    expect(article.title).toBe('A title');
  });

  it('keeps list items apart inside a paragraph', async () => {
    const article = await readJatsArticle({
      title: TITLE,
      body: '<p>Steps:<list><list-item><p>one</p></list-item><list-item><p>two</p></list-item></list></p>',
    });
    expect(article.paragraphs).toEqual([{ section: 'Body', text: 'Steps: one two' }]);
  });

  it('puts abstract paragraphs first, all in section Abstract, with structured-abstract titles kept as labels', async () => {
    const article = await readJatsArticle({
      title: TITLE,
      abstracts: `<abstract><title>Abstract</title>
          <sec><title>BACKGROUND:</title><p>Why.</p><p>More why.</p></sec>
          <sec><title>Methods</title><p>How.</p></sec>
        </abstract>
        <abstract abstract-type="summary"><title>Author Summary</title><p>Plain words.</p></abstract>`,
      body: '<sec><title>Introduction</title><p>Intro.</p></sec>',
    });
    expect(article.paragraphs).toEqual([
      { section: 'Abstract', text: 'Background: Why.' },
      { section: 'Abstract', text: 'More why.' },
      { section: 'Abstract', text: 'Methods: How.' },
      { section: 'Author Summary', text: 'Plain words.' },
      { section: 'Introduction', text: 'Intro.' },
    ]);
    expect(abstractOf(article.paragraphs)).toBe('Background: Why.\nMore why.\nMethods: How.');
  });

  it('accepts an article with an abstract but no body', async () => {
    const article = await readJatsArticle({ title: TITLE, abstracts: '<abstract><p>Only.</p></abstract>' });
    expect(article.paragraphs).toEqual([{ section: 'Abstract', text: 'Only.' }]);
  });
});

describe('jats reader: errors and multi-article files', () => {
  it('rejects an article without a title, naming the file and element', async () => {
    const { file, events } = await readJatsText(jats({ body: ONE_PARAGRAPH }));
    expect(events).toEqual([
      {
        kind: 'error',
        source: { file, line: expect.any(Number), element: 'article' },
        message: 'article has no title (article-meta/title-group/article-title)',
      },
    ]);
  });

  it('rejects an article without any paragraph', async () => {
    const { file, events } = await readJatsText(
      jats({ title: TITLE, body: '<sec><title>Empty</title><p>  </p><fig><caption><p>x</p></caption></fig></sec>' }),
    );
    expect(errorsOf(events)).toEqual([
      {
        kind: 'error',
        source: { file, line: expect.any(Number), element: 'article' },
        message: 'article has no paragraph (<p>) in its <abstract> or <body>',
      },
    ]);
  });

  it('reports malformed XML with its position and stops reading the file', async () => {
    const content = jats({ title: TITLE, body: '<sec><title>S</title><p>Unclosed <italic>text</p></sec>' });
    const { file, events } = await readJatsText(content);
    expect(events).toHaveLength(1);
    const [error] = errorsOf(events);
    const line = content.split('\n').findIndex((text) => text.includes('Unclosed')) + 1;
    expect(error.source).toEqual({ file, line, element: 'article' });
    expect(error.message).toMatch(new RegExp(`^malformed XML at line ${line}, column \\d+ inside <article/body/sec/p`));
    expect(error.message).toMatch(/close tag; the rest of the file is skipped$/);
  });

  it('reports a file that ends in the middle of the article', async () => {
    const content = jats({ title: TITLE, body: ONE_PARAGRAPH });
    const { events } = await readJatsText(content.slice(0, content.indexOf('</body>')));
    expect(events).toHaveLength(1);
    expect(errorsOf(events)[0].message).toMatch(/^malformed XML/);
  });

  it('rejects an undeclared entity as malformed but knows common HTML ones', async () => {
    const { events } = await readJatsText(jats({ title: TITLE, body: '<p>&undeclared;</p>' }));
    expect(errorsOf(events)[0].message).toMatch(/undefined entity/);
    const article = await readJatsArticle({ title: TITLE, body: '<p>a&nbsp;b &ndash; c&#x000e9;</p>' });
    expect(article.paragraphs[0].text).toBe('a b – cé');
  });

  it('reads each article of a pmc-articleset', async () => {
    const article = (n: number, title: string) =>
      `<article article-type="research-article"><front><article-meta>${title}</article-meta></front><body><p>Text ${n}.</p></body></article>`;
    const { file, events } = await readJatsText(
      [
        '<?xml version="1.0"?>',
        '<pmc-articleset>',
        article(1, `<title-group>${TITLE}</title-group>`),
        article(2, ''),
        article(3, '<title-group><article-title>Third</article-title></title-group>'),
        '</pmc-articleset>',
      ].join('\n'),
    );
    expect(events.map((event) => event.source.element)).toEqual(['article #1', 'article #2', 'article #3']);
    // Without ids, the file's base name identifies the article, with its position after the first.
    expect(articlesOf(events).map((a) => [a.article_id, a.title, a.paragraphs[0].text])).toEqual([
      ['article', 'A title', 'Text 1.'],
      ['article#3', 'Third', 'Text 3.'],
    ]);
    expect(errorsOf(events)).toEqual([
      {
        kind: 'error',
        source: { file, line: 4, element: 'article #2' },
        message: 'article #2 has no title (article-meta/title-group/article-title)',
      },
    ]);
  });
});
