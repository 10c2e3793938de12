import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { fixtureApp } from './app-fixture.js';
import { fixtureDir, readOne, writeFixture } from '../corpus/fixtures.js';
import { article } from '../search/helpers.js';

// A British Journal of Cancer article as PMC ships it (print and electronic ISSN) and a
// PubMed record with several publication types, read by the real readers, then indexed.
const BJC_JATS = `<?xml version="1.0" encoding="UTF-8"?>
<article article-type="research-article"><front>
  <journal-meta><journal-title-group><journal-title>British Journal of Cancer</journal-title></journal-title-group>
    <issn pub-type="ppub">0007-0920</issn><issn pub-type="epub">1532-1827</issn></journal-meta>
  <article-meta><article-id pub-id-type="pmc">2994229</article-id>
    <title-group><article-title>Tumour growth in mice</article-title></title-group>
    <abstract><p>Tumour cells grow.</p></abstract></article-meta>
</front><body><p>Tumour growth text.</p></body></article>`;

const RCT_PUBMED = `<?xml version="1.0"?><PubmedArticleSet><PubmedArticle><MedlineCitation>
  <PMID Version="1">11111111</PMID>
  <Article><Journal><ISSN IssnType="Print">0140-6736</ISSN><Title>Lancet</Title></Journal>
    <ArticleTitle>Aspirin trial</ArticleTitle><Abstract><AbstractText>Aspirin lowers risk.</AbstractText></Abstract>
    <PublicationTypeList><PublicationType UI="D1">Clinical Trial</PublicationType>
      <PublicationType UI="D2">Journal Article</PublicationType>
      <PublicationType UI="D3">Randomized Controlled Trial</PublicationType></PublicationTypeList>
  </Article>
  <MedlineJournalInfo><ISSNLinking>0140-6736</ISSNLinking></MedlineJournalInfo>
</MedlineCitation></PubmedArticle></PubmedArticleSet>`;

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  const dir = await fixtureDir();
  const bjc = await readOne(await writeFixture(dir, 'bjc.nxml', BJC_JATS), 'jats');
  const rct = await readOne(await writeFixture(dir, 'rct.xml', RCT_PUBMED), 'pubmed');
  ({ app, close } = await fixtureApp([bjc, rct]));
});
afterAll(() => close());

const get = (url: string) => app.inject({ method: 'GET', url });
const countOf = async (query: string) => (await get(`/retrieval/article_count${query}`)).json().article_count;

describe('journals: every ISSN of an article', () => {
  it('finds the article by its print and its electronic ISSN', async () => {
    expect(await countOf('?journals=1532-1827')).toBe(1);
    expect(await countOf('?journals=0007-0920')).toBe(1);
  });

  it('keeps the electronic ISSN as the article journal_issn', async () => {
    const [article] = (await get('/retrieval/article_listing?journals=0007-0920')).json().items;
    expect(article.journal_issn).toBe('1532-1827');
  });

  it('suggests the journal for an ISSN, or its start, typed with or without the dash', async () => {
    for (const typed of ['0007-0920', '00070920', '1532-1827', '15321827', '0007', '0007-09', '153218', '1532-182']) {
      const suggestions = (await get(`/suggestions/journal?keywords=${typed}`)).json();
      expect(suggestions.map((s: { journal_name: string }) => s.journal_name)).toEqual(['British Journal of Cancer']);
    }
  });

  it('reads punctuation around a typed word as no part of it (a citation pasted: "Cancer," found nothing)', async () => {
    for (const typed of ['Cancer%2C', '%22british%22', 'cancer.%20(british)', '0007-0920%3B']) {
      const suggestions = (await get(`/suggestions/journal?keywords=${typed}`)).json();
      expect([typed, suggestions.map((s: { journal_name: string }) => s.journal_name)]).toEqual([typed, ['British Journal of Cancer']]);
    }
  });

  it('takes an ISSN start of four digits or more, as the README says: shorter numbers match journal names only', async () => {
    for (const typed of ['0', '00', '000', '153']) expect([typed, (await get(`/suggestions/journal?keywords=${typed}`)).json()]).toEqual([typed, []]);
  });
});

describe('publication types: every type of a PubMed record', () => {
  it('filters on any of its types, as typed in PubMed or as a slug', async () => {
    expect(await countOf('?article_types=Randomized%20Controlled%20Trial')).toBe(1);
    expect(await countOf('?article_types=randomized-controlled-trial')).toBe(1);
    expect(await countOf('?article_types=Clinical%20Trial')).toBe(1);
    expect(await countOf('?article_types=review')).toBe(0);
  });

  it('keeps the primary type as the article_type of hits', async () => {
    const [article] = (await get('/retrieval/article_listing?article_types=Randomized%20Controlled%20Trial')).json().items;
    expect(article.article_type).toBe('clinical-trial');
  });

  it('counts the record under each of its types in suggestions', async () => {
    const counts = (await get('/suggestions/article_types')).json();
    expect(counts).toEqual(
      expect.arrayContaining([
        { article_type: 'clinical-trial', docs_in_db: 1 },
        { article_type: 'randomized-controlled-trial', docs_in_db: 1 },
        { article_type: 'research-article', docs_in_db: 1 },
      ]),
    );
  });
});

describe('journal suggestions for a word typed twice', () => {
  it('rank as for the word once: a name starting with it before one holding it, whatever their sizes', async () => {
    const journal = (id: string, issn: string, name: string) => article(id, ['Grid cells.'], { journal_issn: issn, journal_name: name });
    const fixture = await fixtureApp([
      journal('a1', '0270-6474', 'Journal of Neuroscience'),
      journal('a2', '0270-6474', 'Journal of Neuroscience'),
      journal('a3', '0896-6273', 'Neuron'),
    ]);
    try {
      const names = async (keywords: string) =>
        (await fixture.app.inject({ url: `/suggestions/journal?keywords=${keywords}` })).json().map((s: { journal_name: string }) => s.journal_name);
      expect(await names('neuro')).toEqual(['Neuron', 'Journal of Neuroscience']);
      expect(await names('neuro%20neuro')).toEqual(['Neuron', 'Journal of Neuroscience']);
      expect(await names('NEURO%20neuro,')).toEqual(['Neuron', 'Journal of Neuroscience']);
    } finally {
      await fixture.close();
    }
  });
});
