/**
 * Reads article and paragraph metadata out of a loaded index, in the API's
 * shapes (Context metadata and article listing items).
 */
import { ABSTRACT_SECTION, paragraphIdOf, type ArticleMetadata, type ContextMetadata } from './model.js';
import type { Searcher, ParagraphHit } from '../search/searcher.js';

export interface ArticleLocation {
  segment: number;
  article: number;
}

export class Library {
  private byId?: Map<string, ArticleLocation>;

  constructor(private readonly searcher: Searcher) {}

  private get segments() {
    return this.searcher.snapshot.segments;
  }

  articleMetadata({ segment: s, article }: ArticleLocation): ArticleMetadata {
    const segment = this.segments[s]!.segment;
    const stored = segment.article(article);
    const abstract: string[] = [];
    for (let p = segment.articleFirstParagraph[article]!; p < segment.articleFirstParagraph[article + 1]!; p++) {
      if (segment.sections.get(segment.paragraphSection[p]!) === ABSTRACT_SECTION) abstract.push(segment.paragraphText.get(p));
    }
    return {
      article_title: stored.title,
      article_authors: stored.authors,
      article_id: stored.article_id,
      article_doi: stored.article_doi,
      pubmed_id: stored.pubmed_id,
      date: stored.date,
      article_type: stored.article_type,
      journal_issn: stored.journal_issn,
      journal_name: stored.journal_name,
      cited_by: stored.cited_by,
      impact_factor: stored.impact_factor,
      abstract: abstract.join('\n'),
    };
  }

  paragraphText(hit: Pick<ParagraphHit, 'segment' | 'paragraph'>): string {
    return this.segments[hit.segment]!.segment.paragraphText.get(hit.paragraph);
  }

  contextMetadata(hit: ParagraphHit, contextId: number, rerankingScore: number | null): ContextMetadata {
    const segment = this.segments[hit.segment]!.segment;
    const article = segment.paragraphArticle[hit.paragraph]!;
    const metadata = this.articleMetadata({ segment: hit.segment, article });
    const position = hit.paragraph - segment.articleFirstParagraph[article]!;
    return {
      ...metadata,
      paragraph: segment.paragraphText.get(hit.paragraph),
      paragraph_id: paragraphIdOf(metadata.article_id, position),
      section: segment.sections.get(segment.paragraphSection[hit.paragraph]!),
      context_id: contextId,
      reranking_score: rerankingScore,
    };
  }

  /** Location of a live article by id (the map is built on first use). */
  locate(articleId: string): ArticleLocation | null {
    if (!this.byId) {
      this.byId = new Map();
      this.segments.forEach(({ segment, liveArticles }, s) => {
        for (let a = 0; a < segment.articleCount; a++) {
          if (!liveArticles || liveArticles.has(a)) this.byId!.set(segment.articleIds.get(a), { segment: s, article: a });
        }
      });
    }
    return this.byId.get(articleId) ?? null;
  }

  getArticle(articleId: string): ArticleMetadata | null {
    const location = this.locate(articleId);
    return location && this.articleMetadata(location);
  }

  articleCount(): number {
    return this.searcher.snapshot.liveArticleCount;
  }

  /** Live article ids in index order, for paging through the corpus. */
  listArticleIds(offset: number, limit: number): string[] {
    this.locate('');
    return [...this.byId!.keys()].slice(offset, offset + limit);
  }
}
