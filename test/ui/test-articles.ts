/** An article of the page tests' corpora: plain defaults, with the fields a test is about given. */
import type { ArticleInput } from '../../src/corpus/model.js';

export function testArticle(id: string, fields: Partial<ArticleInput> = {}): ArticleInput {
  return {
    article_id: id,
    title: 'Zebrafinch song learning',
    authors: ['Ann Author'],
    article_doi: null,
    pubmed_id: null,
    date: '2021-03-04',
    article_type: 'research-article',
    journal_issn: null,
    journal_name: 'Journal of Tests',
    cited_by: null,
    impact_factor: null,
    paragraphs: [{ section: 'Abstract', text: 'Zebrafinch juveniles copy the song of a tutor during a sensitive period.' }],
    ...fields,
  };
}
