/**
 * The readers over real files from ../shared/data (PMC open-access JATS,
 * a MEDLINE record, and the scholaretl parser fixtures). The expected values
 * were read from those files. The folder is not part of the repository, so
 * these tests skip when it is absent.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISSN_PATTERN, abstractOf, isValidDate, type ArticleInput } from '../../src/corpus/model.js';
import { detectFormat, expandInputs } from '../../src/corpus/readers/index.js';
import { articlesOf, errorsOf, readAll, readOne } from './fixtures.js';

const PMC_DIR = path.resolve('..', 'shared', 'data', 'pmc-jats');
const ETL_DIR = path.resolve('..', 'shared', 'data', 'etl-fixtures');

for (const dir of [PMC_DIR, ETL_DIR]) {
  if (!existsSync(dir)) console.warn(`Skipping reader tests over real files: ${dir} is missing`);
}

function sectionsOf(article: ArticleInput): string[] {
  return [...new Set(article.paragraphs.map((paragraph) => paragraph.section))];
}

describe.skipIf(!existsSync(PMC_DIR))('real PMC JATS articles (../shared/data/pmc-jats)', () => {
  const jats = (name: string) => readOne(path.join(PMC_DIR, name), 'jats');

  it('detects the format of every file it can read', async () => {
    const formats: Record<string, string> = {};
    for await (const file of expandInputs([PMC_DIR])) {
      if (/\.(nxml|xml)$/.test(file)) formats[path.basename(file)] = await detectFormat(file);
    }
    expect(Object.keys(formats)).toHaveLength(9);
    expect(formats['pubmed-29768149.xml']).toBe('pubmed');
    expect(Object.entries(formats).filter(([, format]) => format === 'jats')).toHaveLength(8);
  });

  it('reads every .nxml file into one well-formed article', async () => {
    for await (const file of expandInputs([PMC_DIR])) {
      if (!file.endsWith('.nxml')) continue;
      let bytes = 0;
      const events = await readAll(file, 'jats', { onBytes: (n) => (bytes += n) });
      expect(errorsOf(events), file).toEqual([]);
      const [article] = articlesOf(events);
      expect(article.pubmed_id, file).toMatch(/^\d+$/);
      expect(article.article_id, file).toBe(article.pubmed_id);
      expect(article.article_doi, file).toMatch(/^10\.\d+\//);
      expect(article.journal_issn, file).toMatch(ISSN_PATTERN);
      expect(isValidDate(article.date ?? ''), file).toBe(true);
      expect(article.authors.length, file).toBeGreaterThan(0);
      expect(article.paragraphs.length, file).toBeGreaterThan(10);
      expect(abstractOf(article.paragraphs).length, file).toBeGreaterThan(200);
      expect(article.paragraphs[0].section, file).toBe('Abstract');
      for (const paragraph of article.paragraphs) {
        // No markup left over, whitespace collapsed and trimmed.
        expect(paragraph.text, file).not.toMatch(/<\/?[a-z][\w:-]*[\s/>]|\s{2}|^\s|\s$/i);
        expect(paragraph.section, file).not.toBe('');
      }
      expect(bytes, file).toBe((await stat(file)).size);
    }
  });

  it('1471-2180-11-174.nxml: BMC Microbiology article with a structured abstract', async () => {
    const article = await jats('1471-2180-11-174.nxml');
    expect(article).toMatchObject({
      article_id: '21810267',
      pubmed_id: '21810267',
      article_doi: '10.1186/1471-2180-11-174',
      title: 'Factors influencing lysis time stochasticity in bacteriophage λ',
      authors: ['John J Dennehy', 'Ing-Nang Wang'],
      journal_name: 'BMC Microbiology',
      journal_issn: '1471-2180',
      date: '2011-08-02',
      article_type: 'research-article',
    });
    const abstract = article.paragraphs.filter((p) => p.section === 'Abstract').map((p) => p.text);
    expect(abstract).toHaveLength(3);
    expect(abstract[0]).toMatch(/^Background: Despite identical genotypes and seemingly uniform environments/);
    expect(abstract[1]).toMatch(/^Results: /);
    expect(abstract[2]).toMatch(/^Conclusions: /);
    expect(sectionsOf(article)).toEqual(expect.arrayContaining(['Methods / Bacterial strains', 'Discussion / Effect of energy poison KCN']));
    expect(article.paragraphs.length).toBeGreaterThan(30);
  });

  it('1472-6831-8-11.nxml: journal title outside journal-title-group, four authors', async () => {
    const article = await jats('1472-6831-8-11.nxml');
    expect(article.title).toBe(
      'The Dutch version of the Oral Health Impact Profile (OHIP-NL): Translation, reliability and construct validity',
    );
    expect(article.journal_name).toBe('BMC Oral Health');
    expect(article.authors).toEqual(['Marylee J van der Meulen', 'Mike T John', 'Machiel Naeije', 'Frank Lobbezoo']);
    expect(article.date).toBe('2008-04-11');
    expect(sectionsOf(article)).toContain('Methods / Test-retest reliability');
  });

  it('6605965a.nxml: electronic ISSN and epub date preferred over print', async () => {
    const article = await jats('6605965a.nxml');
    expect(article.journal_issn).toBe('1532-1827');
    expect(article.journal_name).toBe('British Journal of Cancer');
    expect(article.date).toBe('2010-11-02');
    expect(article.article_doi).toBe('10.1038/sj.bjc.6605965');
    expect(article.authors).toHaveLength(46);
    expect(article.authors[0]).toBe('K K Tsilidis');
    expect(article.authors.at(-1)).toBe('E Riboli');
    // Labels written "Background:" in the file are not doubled.
    expect(article.paragraphs[0].text).toMatch(/^Background: Oral contraceptive use/);
    expect(sectionsOf(article)).toEqual(['Abstract', 'Body', 'Materials and Methods', 'Results', 'Discussion']);
  });

  it('ehp-116-1694.nxml: character references in the title, nested Materials and Methods', async () => {
    const article = await jats('ehp-116-1694.nxml');
    expect(article.title).toBe(
      'Dietary Exposure to 2,2′,4,4′-Tetrabromodiphenyl Ether (PBDE-47) Alters Thyroid Status and Thyroid Hormone–Regulated Gene Transcription in the Pituitary and Brain',
    );
    expect(article.journal_issn).toBe('1552-9924');
    expect(article.date).toBe('2008-08-01');
    expect(sectionsOf(article)).toContain('Materials and Methods / Animals and housing');
  });

  it('mds526.nxml: Annals of Oncology, epub date rather than pmc-release', async () => {
    const article = await jats('mds526.nxml');
    expect(article).toMatchObject({
      article_id: '23149571',
      article_doi: '10.1093/annonc/mds526',
      journal_name: 'Annals of Oncology',
      journal_issn: '1569-8041',
      date: '2012-11-12',
    });
    expect(sectionsOf(article)).toContain('methods / data');
  });

  it('pntd.0002065.nxml: author summary kept apart from the abstract, editor not an author', async () => {
    const article = await jats('pntd.0002065.nxml');
    expect(article.title).toBe(
      'Serological Evidence of Rift Valley Fever Virus Circulation in Sheep and Goats in Zambézia Province, Mozambique',
    );
    expect(article.authors[0]).toBe('José Fafetine');
    expect(article.authors).toHaveLength(6);
    expect(article.authors).not.toContain('M. Kariuki Njenga');
    expect(article.paragraphs[0]).toEqual({
      section: 'Abstract',
      text: expect.stringMatching(/^Rift Valley fever \(RVF\) is endemic in most parts of Africa/),
    });
    const summary = article.paragraphs.filter((p) => p.section === 'Author Summary');
    expect(summary).toHaveLength(1);
    expect(summary[0].text).toMatch(/^Rift Valley fever \(RVF\) is a mosquito-borne disease/);
    expect(abstractOf(article.paragraphs)).not.toContain('mosquito-borne disease that results');
    expect(article.journal_issn).toBe('1935-2735');
  });

  it('pone.0000217.nxml: three-level section paths', async () => {
    const article = await jats('pone.0000217.nxml');
    expect(article.journal_name).toBe('PLoS ONE');
    expect(article.date).toBe('2007-02-14');
    expect(sectionsOf(article)).toEqual(
      expect.arrayContaining([
        'Introduction',
        'Model and Results / Linear Fitness Decline',
        'Methods / Appendix B: robustness to assumptions / Slope of the fitness function',
      ]),
    );
    expect(article.paragraphs.length).toBeGreaterThan(40);
  });

  it('pone.0046493.nxml: unstructured abstract, no table or figure text', async () => {
    const article = await jats('pone.0046493.nxml');
    expect(article.article_doi).toBe('10.1371/journal.pone.0046493');
    expect(article.date).toBe('2012-09-28');
    expect(article.authors).toContain('Sadia V. Diomandé');
    expect(article.paragraphs.filter((p) => p.section === 'Abstract')).toHaveLength(1);
    expect(article.paragraphs.every((p) => !/^Table \d/.test(p.text))).toBe(true);
  });

  it('pubmed-29768149.xml: NEJM record with a structured abstract', async () => {
    const article = await readOne(path.join(PMC_DIR, 'pubmed-29768149.xml'), 'pubmed');
    expect(article).toMatchObject({
      article_id: '29768149',
      pubmed_id: '29768149',
      title: 'Inhaled Combined Budesonide-Formoterol as Needed in Mild Asthma.',
      article_doi: '10.1056/NEJMoa1715274',
      journal_issn: '1533-4406',
      journal_name: 'The New England journal of medicine',
      date: '2018-05-17',
      article_type: 'clinical-trial-phase-iii',
    });
    expect(article.authors).toHaveLength(10);
    expect(article.authors[0]).toBe("Paul M O'Byrne");
    expect(article.authors.at(-1)).toBe('Helen K Reddel');
    expect(article.paragraphs.map((p) => p.section)).toEqual(['Abstract', 'Abstract', 'Abstract', 'Abstract']);
    expect(article.paragraphs.map((p) => p.text.split(':')[0])).toEqual(['Background', 'Methods', 'Results', 'Conclusions']);
    expect(article.paragraphs[0].text).toContain('fast-acting β 2-agonist');
  });
});

describe.skipIf(!existsSync(ETL_DIR))('parser fixtures (../shared/data/etl-fixtures)', () => {
  it('jats_article.xml: skips figures, tables and back matter; reviewers and untyped contributors are not authors', async () => {
    const article = await readOne(path.join(ETL_DIR, 'jats_article.xml'), 'jats');
    expect(article).toMatchObject({
      article_id: 'PMID',
      pubmed_id: 'PMID',
      article_doi: 'DOI',
      title: 'Article Title',
      authors: ['Author Given Names 1 Author Surname 1', 'Author Given Names 2 Author Surname 2'],
      journal_issn: '1234-5678',
      date: '2019-03-12',
      article_type: 'research-article',
    });
    expect(article.paragraphs).toEqual([
      { section: 'Abstract', text: 'Abstract Paragraph 1' },
      { section: 'Abstract', text: 'Abstract Paragraph 2' },
      { section: 'Body', text: 'Paragraph 1' },
      { section: 'Body', text: 'Paragraph 2' },
      { section: 'Body', text: 'Paragraph 3' },
      { section: 'Section Title 1', text: 'Paragraph Section 1' },
      { section: 'Section Title 1 / Section Title 2', text: 'Paragraph Section 2' },
      { section: 'Section Title 1 / Section Title 2', text: 'Paragraph 2 Section 2' },
      { section: 'Discussion', text: 'Paragraph Discussion' },
    ]);
  });

  it('jats_article_from_efetch.xml: an article inside a pmc-articleset', async () => {
    const file = path.join(ETL_DIR, 'jats_article_from_efetch.xml');
    expect(await detectFormat(file)).toBe('jats');
    const events = await readAll(file, 'jats');
    expect(events).toHaveLength(1);
    expect(events[0].source.element).toBe('article #1');
    const [article] = articlesOf(events);
    expect(article.title).toBe('Article Title');
    expect(article.paragraphs.length).toBeGreaterThan(5);
  });

  it('biorxiv.xml: preprint with only a DOI and a year', async () => {
    const article = await readOne(path.join(ETL_DIR, 'biorxiv.xml'), 'jats');
    expect(article).toMatchObject({
      article_id: '0123456789',
      article_doi: '0123456789',
      pubmed_id: null,
      title: 'Some title',
      authors: ['Givenname1 Surname1', 'Givenname2 Surnam2'],
      journal_name: 'bioRxiv',
      journal_issn: null,
      date: '2015-01-01',
      article_type: 'article',
    });
    expect(article.paragraphs[0]).toEqual({ section: 'Abstract', text: 'Some abstract' });
  });

  it('pubmed_article.xml: invalid author skipped, padded ISSN trimmed, month name', async () => {
    const file = path.join(ETL_DIR, 'pubmed_article.xml');
    expect(await detectFormat(file)).toBe('pubmed');
    const article = await readOne(file, 'pubmed');
    expect(article).toEqual({
      article_id: '123456',
      pubmed_id: '123456',
      title: 'Article Title',
      authors: ['Forenames 1 Lastname 1', 'Lastname 2', 'Collective name'],
      article_doi: '10.0123/issn.0123-4567',
      date: '2020-12-01',
      article_type: 'mesh-publication-type',
      article_types: ['mesh-publication-type', 'journal-article'],
      journal_issn: '0123-4567',
      journal_issns: ['0123-4567'],
      journal_name: 'Journal Title',
      cited_by: null,
      impact_factor: null,
      paragraphs: [
        { section: 'Abstract', text: 'Abstract Paragraph 1' },
        { section: 'Abstract', text: 'Abstract Paragraph 2' },
      ],
    });
  });

  it('pubmed_articles.xml: two records without abstracts are reported, not indexed', async () => {
    const events = await readAll(path.join(ETL_DIR, 'pubmed_articles.xml'), 'pubmed');
    expect(articlesOf(events)).toEqual([]);
    expect(errorsOf(events).map((e) => [e.source.element, e.message])).toEqual([
      ['PubmedArticle #1', 'PubmedArticle #1 (PMID 123456) has no abstract text, so it has no paragraph to index'],
      ['PubmedArticle #2', 'PubmedArticle #2 (PMID 789123) has no abstract text, so it has no paragraph to index'],
    ]);
  });

  it('refuses the formats it does not read', async () => {
    await expect(detectFormat(path.join(ETL_DIR, 'cord19_metadata.csv'))).rejects.toThrow(/cord19_metadata\.csv/);
    await expect(detectFormat(path.join(ETL_DIR, 'core_article.json'))).rejects.toThrow(/core_article\.json/);
  });
});
