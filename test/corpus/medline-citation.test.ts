/**
 * MEDLINE-format XML: <MedlineCitationSet> files of bare <MedlineCitation> records (no <PubmedArticle>
 * around them, no <PubmedData>), as NLM's older MEDLINE distributions and some exports deliver, and
 * a file whose root is one <MedlineCitation>. Detection calls them pubmed; the pubmed reader reads
 * them, their <DeleteCitation>s included. The fixtures are invented for these tests.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingest } from '../../src/corpus/ingest.js';
import { Library } from '../../src/corpus/library.js';
import { detectFormat, readArticles } from '../../src/corpus/readers/index.js';
import { compileFilterSpec } from '../../src/search/query/filter-spec.js';
import { Searcher } from '../../src/search/searcher.js';
import { tempDir } from '../search/helpers.js';
import { articlesOf, errorsOf, fixtureDir, readAll, writeFixture } from './fixtures.js';

const FULL_CITATION = `
  <MedlineCitation Owner="NLM" Status="MEDLINE">
    <PMID Version="1">7100001</PMID>
    <DateCreated><Year>2004</Year><Month>02</Month><Day>11</Day></DateCreated>
    <Article PubModel="Print-Electronic">
      <Journal>
        <ISSN IssnType="Print">1111-2222</ISSN>
        <JournalIssue CitedMedium="Print"><Volume>12</Volume><PubDate><Year>2004</Year><Month>Mar</Month></PubDate></JournalIssue>
        <Title>Journal of Invented Hepatology</Title>
        <ISOAbbreviation>J Invent Hepatol</ISOAbbreviation>
      </Journal>
      <ArticleTitle>Hepatic <i>lanterns</i> in nocturnal rodents.</ArticleTitle>
      <Pagination><MedlinePgn>1-9</MedlinePgn></Pagination>
      <ELocationID EIdType="doi" ValidYN="Y">10.5555/JIH.2004.0001</ELocationID>
      <Abstract>
        <AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">Livers glow at night.</AbstractText>
        <AbstractText Label="RESULTS" NlmCategory="RESULTS">They glow brighter in winter.</AbstractText>
      </Abstract>
      <AuthorList CompleteYN="Y">
        <Author ValidYN="Y"><LastName>Quill</LastName><ForeName>Ada B</ForeName><Initials>AB</Initials></Author>
        <Author ValidYN="Y"><LastName>Marsh</LastName><Initials>T</Initials></Author>
      </AuthorList>
      <Language>eng</Language>
      <PublicationTypeList>
        <PublicationType UI="D016428">Journal Article</PublicationType>
        <PublicationType UI="D016449">Randomized Controlled Trial</PublicationType>
      </PublicationTypeList>
      <ArticleDate DateType="Electronic"><Year>2004</Year><Month>01</Month><Day>28</Day></ArticleDate>
    </Article>
    <MedlineJournalInfo><Country>Nowhere</Country><MedlineTA>J Invent Hepatol</MedlineTA><ISSNLinking>1111-2222</ISSNLinking></MedlineJournalInfo>
    <CommentsCorrectionsList><CommentsCorrections RefType="CommentIn"><PMID Version="1">7100099</PMID></CommentsCorrections></CommentsCorrectionsList>
  </MedlineCitation>`;

/** A citation with little more than the reader requires: an electronic ISSN, a Review, no DOI, no date. */
function citation(pmid: string, title: string, abstract: string): string {
  return `
  <MedlineCitation Owner="NLM" Status="MEDLINE">
    <PMID Version="1">${pmid}</PMID>
    <Article PubModel="Print">
      <Journal><ISSN IssnType="Electronic">3333-4444</ISSN><Title>Invented Letters</Title></Journal>
      <ArticleTitle>${title}</ArticleTitle>
      <Abstract><AbstractText>${abstract}</AbstractText></Abstract>
      <PublicationTypeList><PublicationType UI="D016454">Review</PublicationType></PublicationTypeList>
    </Article>
  </MedlineCitation>`;
}

function citationSet(...content: string[]): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE MedlineCitationSet PUBLIC "-//NLM//DTD Medline Citation, 1st January, 2015//EN" "http://www.nlm.nih.gov/databases/dtd/nlmmedlinecitationset_150101.dtd">
<MedlineCitationSet>${content.join('')}
</MedlineCitationSet>
`;
}

const DELETION = '\n  <DeleteCitation><PMID Version="1">7100002</PMID><PMID Version="1">7199999</PMID></DeleteCitation>';

function describeEvents(events: Awaited<ReturnType<typeof readAll>>): string[] {
  return events.map((event) => (event.kind === 'article' ? `article ${event.article.article_id}` : event.kind === 'delete' ? `delete ${event.articleId}` : `${event.kind}: ${event.message}`));
}

describe('pubmed reader: MEDLINE <MedlineCitationSet> files', () => {
  it('reads every field of a bare MedlineCitation, its DOI from ELocationID', async () => {
    const dir = await fixtureDir();
    const file = await writeFixture(dir, 'medline.xml', citationSet(FULL_CITATION, citation('7100002', 'Second', 'Short.')));
    expect(await detectFormat(file)).toBe('pubmed');
    const events = await readAll(file, 'pubmed');
    expect(describeEvents(events)).toEqual(['article 7100001', 'article 7100002']);
    expect(events.map((event) => event.source.element)).toEqual(['MedlineCitation #1', 'MedlineCitation #2']);
    expect(events[0]!.source.line).toBe(citationSet(FULL_CITATION).split('\n').findIndex((line) => line.includes('<MedlineCitation ')) + 1);
    expect(articlesOf(events)[0]).toEqual({
      article_id: '7100001',
      pubmed_id: '7100001',
      title: 'Hepatic lanterns in nocturnal rodents.',
      authors: ['Ada B Quill', 'T Marsh'],
      article_doi: '10.5555/JIH.2004.0001',
      date: '2004-01-28',
      article_type: 'randomized-controlled-trial',
      article_types: ['randomized-controlled-trial', 'journal-article'],
      journal_issn: '1111-2222',
      journal_issns: ['1111-2222'],
      journal_name: 'Journal of Invented Hepatology',
      cited_by: null,
      impact_factor: null,
      paragraphs: [
        { section: 'Abstract', text: 'Background: Livers glow at night.' },
        { section: 'Abstract', text: 'Results: They glow brighter in winter.' },
      ],
    });
    expect(articlesOf(events)[1]).toMatchObject({ article_doi: null, journal_issn: '3333-4444', article_type: 'review', date: null });
  });

  it('ingests a detected MedlineCitationSet file, not skipping it', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = await writeFixture(dir, 'medline.xml', citationSet(FULL_CITATION, citation('7100002', 'Second', 'Short.')));
      const indexDir = path.join(dir, 'index');
      const skipped: string[] = [];
      const report = await ingest({ inputs: [file], indexDir, onSkip: (_source, message) => skipped.push(message) });
      expect(skipped).toEqual([]);
      expect(report).toMatchObject({ files: 1, skippedFiles: 0, read: 2, indexed: 2, skipped: 0 });
      const searcher = await Searcher.open(indexDir, { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 });
      try {
        expect(new Library(searcher).getArticle('7100001')).toMatchObject({
          article_title: 'Hepatic lanterns in nocturnal rodents.',
          article_authors: ['Ada B Quill', 'T Marsh'],
          article_doi: '10.5555/JIH.2004.0001',
          date: '2004-01-28',
          article_type: 'randomized-controlled-trial',
          journal_issn: '1111-2222',
          journal_name: 'Journal of Invented Hepatology',
          abstract: expect.stringContaining('They glow brighter in winter.'),
        });
        const hits = await searcher.search('winter', 10, compileFilterSpec({}));
        expect(hits.map((hit) => searcher.articleIdOf(hit))).toEqual(['7100001']);
      } finally {
        await searcher.close();
      }
    } finally {
      await cleanup();
    }
  });

  it('reads a file whose root is a single MedlineCitation', async () => {
    const dir = await fixtureDir();
    const file = await writeFixture(dir, 'one.xml', `<?xml version="1.0"?>${citation('7100005', 'Alone', 'Only one.')}\n`);
    expect(await detectFormat(file)).toBe('pubmed');
    const events = await readAll(file, 'pubmed');
    expect(describeEvents(events)).toEqual(['article 7100005']);
    expect(articlesOf(events)[0]).toMatchObject({ title: 'Alone', paragraphs: [{ section: 'Abstract', text: 'Only one.' }] });
  });

  it('rejects incomplete citations naming them as MedlineCitation records', async () => {
    const dir = await fixtureDir();
    const noTitle = citation('7100006', '', 'Text.');
    const noPmid = citation('', 'No PMID', 'Text.');
    const file = await writeFixture(dir, 'bad.xml', citationSet(citation('7100005', 'Fine', 'Text.'), noTitle, noPmid));
    const events = await readAll(file, 'pubmed');
    expect(articlesOf(events).map((article) => article.article_id)).toEqual(['7100005']);
    expect(errorsOf(events).map((error) => [error.source.element, error.message])).toEqual([
      ['MedlineCitation #2', 'MedlineCitation #2 (PMID 7100006) has no ArticleTitle'],
      ['MedlineCitation #3', 'MedlineCitation #3 has no PMID (MedlineCitation/PMID)'],
    ]);
  });

  it('reads the DeleteCitation of a MEDLINE update file as deletions, and applies them on ingest', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const baseline = await writeFixture(dir, 'baseline.xml', citationSet(FULL_CITATION, citation('7100002', 'Gone soon', 'Deleted later.')));
      const update = await writeFixture(dir, 'update.xml', citationSet(citation('7100003', 'New', 'Added later.'), DELETION));
      expect(describeEvents(await readAll(update, 'pubmed'))).toEqual(['article 7100003', 'delete 7100002', 'delete 7199999']);
      // A set holding only deletions is still detected as PubMed, and gives its deletions.
      const onlyDeletions = await writeFixture(dir, 'deletions.xml', citationSet(DELETION));
      expect(await detectFormat(onlyDeletions)).toBe('pubmed');
      expect(describeEvents(await readAll(onlyDeletions, 'pubmed'))).toEqual(['delete 7100002', 'delete 7199999']);

      const indexDir = path.join(dir, 'index');
      expect(await ingest({ inputs: [baseline], indexDir })).toMatchObject({ indexed: 2, added: 2 });
      expect(await ingest({ inputs: [update], indexDir })).toMatchObject({ skippedFiles: 0, indexed: 1, added: 1, deleted: 1, notFound: ['7199999'] });
      const searcher = await Searcher.open(indexDir, { threads: 0, k1: 0.9, b: 0.4, titleWeight: 0.5, filterCacheSize: 4 });
      try {
        expect(new Library(searcher).listArticleIds(0, 10).sort()).toEqual(['7100001', '7100003']);
      } finally {
        await searcher.close();
      }
    } finally {
      await cleanup();
    }
  });

  it('says nothing of an empty MedlineCitationSet, and reports a broken one as malformed, not as another format', async () => {
    const dir = await fixtureDir();
    const empty = await writeFixture(dir, 'empty.xml', citationSet());
    expect(await readAll(empty, 'pubmed')).toEqual([]);
    const broken = await writeFixture(dir, 'broken.xml', `<MedlineCitation><PMID>1</PMID><Article><ArticleTitle>Cut <b>off</ArticleTitle>`);
    const events = await readAll(broken, 'pubmed');
    expect(events).toEqual([expect.objectContaining({ kind: 'error', message: expect.stringMatching(/^malformed XML at line 1, column \d+ inside <MedlineCitation\/Article\/ArticleTitle/) })]);
    expect(events[0]!.source.element).toBe('MedlineCitation #1');
  });

  it('streams a large set citation by citation', async () => {
    const count = 2000;
    const citations = Array.from({ length: count }, (_, i) => citation(String(i + 1), `Title ${i + 1}`, 'word '.repeat(50)));
    const dir = await fixtureDir();
    const file = await writeFixture(dir, 'large.xml', citationSet(...citations));
    let bytes = 0;
    let articles = 0;
    let bytesAtFirstArticle: number | null = null;
    for await (const event of readArticles(file, 'pubmed', { onBytes: (n) => (bytes += n) })) {
      if (event.kind !== 'article') continue;
      articles += 1;
      bytesAtFirstArticle ??= bytes;
    }
    expect(articles).toBe(count);
    // The first article arrives after the first chunk, not after the whole file.
    expect(bytesAtFirstArticle).toBeLessThan(bytes / 2);
  });
});
