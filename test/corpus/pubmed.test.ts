import { describe, expect, it } from 'vitest';
import { abstractOf } from '../../src/corpus/model.js';
import { readArticles } from '../../src/corpus/readers/index.js';
import { articleTypeOf } from '../../src/corpus/readers/pubmed.js';
import { articlesOf, errorsOf, fixtureDir, readAll, writeFixture } from './fixtures.js';

interface RecordParts {
  pmid?: string;
  title?: string;
  journal?: string;
  articleDate?: string;
  abstract?: string;
  authors?: string;
  extraArticle?: string;
  publicationTypes?: string[];
  afterArticle?: string;
  pubmedData?: string;
}

function record(parts: RecordParts): string {
  const types = (parts.publicationTypes ?? ['Journal Article'])
    .map((type) => `<PublicationType UI="D0">${type}</PublicationType>`)
    .join('');
  return `
  <PubmedArticle>
    <MedlineCitation Status="MEDLINE" Owner="NLM">
      ${parts.pmid === undefined ? '' : `<PMID Version="1">${parts.pmid}</PMID>`}
      <DateCompleted><Year>2001</Year><Month>01</Month><Day>01</Day></DateCompleted>
      <Article PubModel="Print">
        <Journal>${parts.journal ?? ''}</Journal>
        ${parts.title === undefined ? '' : `<ArticleTitle>${parts.title}</ArticleTitle>`}
        ${parts.extraArticle ?? ''}
        ${parts.abstract === undefined ? '' : `<Abstract>${parts.abstract}</Abstract>`}
        ${parts.authors === undefined ? '' : `<AuthorList CompleteYN="Y">${parts.authors}</AuthorList>`}
        <PublicationTypeList>${types}</PublicationTypeList>
        ${parts.articleDate ?? ''}
      </Article>
      ${parts.afterArticle ?? ''}
    </MedlineCitation>
    <PubmedData>${parts.pubmedData ?? ''}</PubmedData>
  </PubmedArticle>`;
}

function articleSet(...records: string[]): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2019//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_190101.dtd">
<PubmedArticleSet>${records.join('')}
</PubmedArticleSet>
`;
}

const ABSTRACT = '<AbstractText>Plain abstract.</AbstractText>';

async function readSet(content: string) {
  const dir = await fixtureDir();
  const file = await writeFixture(dir, 'set.xml', content);
  return { file, events: await readAll(file, 'pubmed') };
}

async function readRecord(parts: RecordParts) {
  const { events } = await readSet(articleSet(record({ pmid: '1', title: 'T', abstract: ABSTRACT, ...parts })));
  const articles = articlesOf(events);
  if (articles.length !== 1) throw new Error(JSON.stringify(events));
  return articles[0];
}

describe('pubmed reader: fields', () => {
  it('reads a full record', async () => {
    const article = await readRecord({
      pmid: '29768149',
      title: 'Inhaled budesonide in <i>mild</i> asthma.',
      journal: `<ISSN IssnType="Print">0028-4793</ISSN><ISSN IssnType="Electronic">1533-4406</ISSN>
        <JournalIssue CitedMedium="Internet"><PubDate><Year>2018</Year><Month>May</Month><Day>17</Day></PubDate></JournalIssue>
        <Title>The New England journal of medicine</Title>`,
      extraArticle: '<ELocationID EIdType="pii" ValidYN="Y">X1</ELocationID><ELocationID EIdType="doi" ValidYN="Y">10.1056/NEJMoa1715274</ELocationID>',
      authors: `
        <Author ValidYN="N"><LastName>Wrong</LastName><ForeName>Name</ForeName></Author>
        <Author ValidYN="Y"><LastName>O'Byrne</LastName><ForeName>Paul M</ForeName><Initials>PM</Initials></Author>
        <Author><LastName>Zhong</LastName><Initials>N</Initials></Author>
        <Author><LastName>Solo</LastName></Author>
        <Author><CollectiveName>SYGMA 1 Investigators</CollectiveName></Author>`,
      afterArticle: '<CommentsCorrectionsList><CommentsCorrections RefType="CommentIn"><PMID Version="1">29768146</PMID></CommentsCorrections></CommentsCorrectionsList>',
      publicationTypes: ['Clinical Trial, Phase III', 'Journal Article', 'Research Support, Non-U.S. Gov\'t'],
    });
    expect(article).toEqual({
      article_id: '29768149',
      pubmed_id: '29768149',
      title: 'Inhaled budesonide in mild asthma.',
      authors: ["Paul M O'Byrne", 'N Zhong', 'Solo', 'SYGMA 1 Investigators'],
      article_doi: '10.1056/NEJMoa1715274',
      date: '2018-05-17',
      article_type: 'clinical-trial-phase-iii',
      article_types: ['clinical-trial-phase-iii', 'journal-article', 'research-support-non-u-s-gov-t'],
      journal_issn: '1533-4406',
      journal_issns: ['1533-4406', '0028-4793'],
      journal_name: 'The New England journal of medicine',
      cited_by: null,
      impact_factor: null,
      paragraphs: [{ section: 'Abstract', text: 'Plain abstract.' }],
    });
  });

  it('keeps structured-abstract labels as a prefix of Abstract paragraphs', async () => {
    const article = await readRecord({
      abstract: `
        <AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">In patients with &#946;
          <sub>2</sub>-agonists.</AbstractText>
        <AbstractText Label="MATERIALS AND METHODS">We did it.</AbstractText>
        <AbstractText Label="Conclusions">It works.</AbstractText>
        <AbstractText Label="EMPTY"></AbstractText>
        <CopyrightInformation>© 2018 Someone</CopyrightInformation>`,
    });
    expect(article.paragraphs).toEqual([
      { section: 'Abstract', text: 'Background: In patients with β 2-agonists.' },
      { section: 'Abstract', text: 'Materials and methods: We did it.' },
      { section: 'Abstract', text: 'Conclusions: It works.' },
    ]);
    expect(abstractOf(article.paragraphs)).toContain('Materials and methods: We did it.');
  });

  it('takes the date from ArticleDate, else PubDate, with month names and MedlineDate', async () => {
    const pubDate = (inner: string) => `<JournalIssue><PubDate>${inner}</PubDate></JournalIssue>`;
    const cases: [RecordParts, string | null][] = [
      [
        {
          journal: pubDate('<Year>2020</Year><Month>Dec</Month>'),
          articleDate: '<ArticleDate DateType="Electronic"><Year>2020</Year><Month>11</Month><Day>03</Day></ArticleDate>',
        },
        '2020-11-03',
      ],
      [{ journal: pubDate('<Year>2020</Year><Month>Dec</Month>') }, '2020-12-01'],
      [{ journal: pubDate('<Year>2019</Year><Month>September</Month><Day>9</Day>') }, '2019-09-09'],
      [{ journal: pubDate('<Year>2019</Year>') }, '2019-01-01'],
      [{ journal: pubDate('<MedlineDate>1998 Dec-1999 Jan</MedlineDate>') }, '1998-12-01'],
      [{ journal: pubDate('<MedlineDate>2000 Spring</MedlineDate>') }, '2000-01-01'],
      [{ journal: pubDate('<MedlineDate>1999-2000</MedlineDate>') }, '1999-01-01'],
      [{ journal: pubDate('<Year>2023</Year><Month>Feb</Month><Day>30</Day>') }, null],
      [{}, null],
    ];
    for (const [parts, expected] of cases) {
      expect((await readRecord(parts)).date, JSON.stringify(parts)).toBe(expected);
    }
  });

  it('finds the DOI in the record ArticleIdList, not in its references', async () => {
    const article = await readRecord({
      pubmedData: `<ReferenceList><Reference><ArticleIdList><ArticleId IdType="doi">10.9/ref</ArticleId></ArticleIdList></Reference></ReferenceList>
        <ArticleIdList><ArticleId IdType="pubmed">1</ArticleId><ArticleId IdType="doi">10.0123/own</ArticleId></ArticleIdList>`,
    });
    expect(article.article_doi).toBe('10.0123/own');
    expect((await readRecord({})).article_doi).toBeNull();
  });

  it('chooses the electronic ISSN, then any valid one, then ISSNLinking', async () => {
    const cases: [RecordParts, string | null][] = [
      [{ journal: '<ISSN IssnType="Print">  0123-4567  </ISSN>' }, '0123-4567'],
      [{ journal: '<ISSN IssnType="Print">bad</ISSN>', afterArticle: '<MedlineJournalInfo><ISSNLinking>0028-4793</ISSNLinking></MedlineJournalInfo>' }, '0028-4793'],
      [{}, null],
    ];
    for (const [parts, expected] of cases) {
      expect((await readRecord(parts)).journal_issn, JSON.stringify(parts)).toBe(expected);
    }
  });

  it('maps publication types to a hyphenated article type, preferring Review', () => {
    expect(articleTypeOf(['Journal Article'])).toBe('journal-article');
    expect(articleTypeOf(['Journal Article', 'Review', 'Comparative Study'])).toBe('review');
    expect(articleTypeOf(['Clinical Trial', 'Journal Article'])).toBe('clinical-trial');
    expect(articleTypeOf(['English Abstract', 'Journal Article', 'Research Support, N.I.H., Extramural'])).toBe(
      'journal-article',
    );
    expect(articleTypeOf(["Research Support, Non-U.S. Gov't", 'Letter'])).toBe('letter');
    expect(articleTypeOf([])).toBe('journal-article');
  });
});

describe('pubmed reader: records and errors', () => {
  it('reads every record of a set and rejects the incomplete ones with their position', async () => {
    const { file, events } = await readSet(
      articleSet(
        record({ pmid: '10', title: 'First', abstract: ABSTRACT }),
        record({
          title: 'No PMID of its own',
          abstract: ABSTRACT,
          afterArticle: '<CommentsCorrectionsList><CommentsCorrections><PMID>99</PMID></CommentsCorrections></CommentsCorrectionsList>',
        }),
        record({ pmid: '30', abstract: ABSTRACT }),
        record({ pmid: '40', title: 'No abstract' }),
        record({ pmid: '50', title: 'Last', abstract: ABSTRACT, publicationTypes: ['Review'] }),
      ),
    );
    expect(articlesOf(events).map((a) => [a.article_id, a.title, a.article_type])).toEqual([
      ['10', 'First', 'journal-article'],
      ['50', 'Last', 'review'],
    ]);
    expect(events.map((event) => event.source.element)).toEqual([1, 2, 3, 4, 5].map((n) => `PubmedArticle #${n}`));
    expect(errorsOf(events).map((error) => error.message)).toEqual([
      'PubmedArticle #2 has no PMID (MedlineCitation/PMID)',
      'PubmedArticle #3 (PMID 30) has no ArticleTitle',
      'PubmedArticle #4 (PMID 40) has no abstract text, so it has no paragraph to index',
    ]);
    // Each record's line is where its <PubmedArticle> tag ends in the file.
    const content = articleSet(record({}));
    const recordLines = events.map((event) => event.source.line);
    expect(recordLines).toEqual([...recordLines].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(recordLines[0]).toBe(content.split('\n').findIndex((line) => line.includes('<PubmedArticle>')) + 1);
    expect(errorsOf(events)[0].source.file).toBe(file);
  });

  it('keeps the records before a malformed one and reports where the file broke', async () => {
    const broken = record({ pmid: '2', title: 'Broken <b>title', abstract: ABSTRACT });
    const content = articleSet(record({ pmid: '1', title: 'Fine', abstract: ABSTRACT }), broken, record({ pmid: '3', title: 'Lost', abstract: ABSTRACT }));
    const { file, events } = await readSet(content);
    expect(articlesOf(events).map((a) => a.article_id)).toEqual(['1']);
    const errors = errorsOf(events);
    expect(errors).toHaveLength(1);
    expect(errors[0].source).toMatchObject({ file, element: 'PubmedArticle #2' });
    expect(errors[0].message).toMatch(/^malformed XML at line \d+, column \d+ inside <PubmedArticleSet\/PubmedArticle\/MedlineCitation\/Article\/ArticleTitle/);
    expect(errors[0].source.line).toBe(content.split('\n').findIndex((line) => line.includes('Broken')) + 1);
  });

  it('reads a bare PubmedArticle file and ignores book records', async () => {
    const { events } = await readSet(record({ pmid: '7', title: 'Alone', abstract: ABSTRACT }));
    expect(articlesOf(events).map((a) => a.article_id)).toEqual(['7']);
    const withBook = articleSet(
      '<PubmedBookArticle><BookDocument><PMID>8</PMID><ArticleTitle>Book</ArticleTitle></BookDocument></PubmedBookArticle>',
      record({ pmid: '9', title: 'Article', abstract: ABSTRACT }),
    );
    expect((await readSet(withBook)).events.map((e) => e.kind === 'article' && e.article.article_id)).toEqual(['9']);
  });

  it('streams a large set record by record', async () => {
    const count = 2000;
    const records = Array.from({ length: count }, (_, i) =>
      record({ pmid: String(i + 1), title: `Title ${i + 1}`, abstract: `<AbstractText>${'word '.repeat(50)}</AbstractText>` }),
    );
    const dir = await fixtureDir();
    const file = await writeFixture(dir, 'large.xml', articleSet(...records));
    let calls = 0;
    let bytes = 0;
    let articles = 0;
    let bytesAtFirstArticle: number | null = null;
    const onBytes = (n: number) => {
      calls += 1;
      bytes += n;
    };
    for await (const event of readArticles(file, 'pubmed', { onBytes })) {
      if (event.kind !== 'article') continue;
      articles += 1;
      bytesAtFirstArticle ??= bytes;
    }
    expect(articles).toBe(count);
    expect(calls).toBeGreaterThan(5);
    // The first article arrives after the first chunk, not after the whole file.
    expect(bytesAtFirstArticle).toBeLessThan(bytes / 2);
  });
});
