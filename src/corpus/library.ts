/**
 * Reads article and paragraph metadata out of a loaded index, in the API's
 * shapes (Context metadata and article listing items): as objects for QA and
 * the platform, and as response bytes assembled from the stored JSON fragments
 * for the routes that return many of them (hits-json.ts).
 */
import type { ArticleMetadata, ContextMetadata } from './model.js';
import type { Searcher, ParagraphHit } from '../search/searcher.js';
import { contextsJson, listingJson, type ListingPage } from './hits-json.js';

export interface ArticleLocation {
  segment: number;
  article: number;
}

interface ParagraphFields {
  paragraph: string;
  paragraph_id: string;
  section: string;
}

export class Library {
  private byId?: Map<string, ArticleLocation>;

  constructor(private readonly searcher: Searcher) {}

  private get segments() {
    return this.searcher.snapshot.segments;
  }

  articleMetadata({ segment, article }: ArticleLocation): ArticleMetadata {
    return JSON.parse(`{${this.segments[segment]!.stored.articleJson(article)}}`) as ArticleMetadata;
  }

  private paragraphFields(hit: Pick<ParagraphHit, 'segment' | 'paragraph'>): ParagraphFields {
    return JSON.parse(`{${this.segments[hit.segment]!.stored.paragraphJson(hit.paragraph)}}`) as ParagraphFields;
  }

  paragraphText(hit: Pick<ParagraphHit, 'segment' | 'paragraph'>): string {
    return this.segments[hit.segment]!.stored.paragraphText(hit.paragraph);
  }

  contextMetadata(hit: ParagraphHit, contextId: number, rerankingScore: number | null): ContextMetadata {
    return {
      ...this.articleMetadata(this.hitArticle(hit)),
      ...this.paragraphFields(hit),
      context_id: contextId,
      reranking_score: rerankingScore,
    };
  }

  /**
   * Whether the article's abstract, and the hit's paragraph when given, are at
   * most `limit` characters, so a response cut to `limit` leaves them as
   * stored. A stored fragment is UTF-8 JSON, at least one byte per UTF-16
   * unit of its strings, so a fragment of at most `limit` bytes needs no
   * closer look; only longer ones are decoded and measured.
   */
  withinLimit({ segment, article }: ArticleLocation, paragraph: number | null, limit: number): boolean {
    const { stored } = this.segments[segment]!;
    const articleFits = stored.articleLength(article) <= limit || this.articleMetadata({ segment, article }).abstract.length <= limit;
    if (!articleFits || paragraph === null) return articleFits;
    return stored.paragraphLength(paragraph) <= limit || stored.paragraphText(paragraph).length <= limit;
  }

  /** Where the article of a paragraph hit is. */
  hitArticle(hit: Pick<ParagraphHit, 'segment' | 'paragraph'>): ArticleLocation {
    return { segment: hit.segment, article: this.segments[hit.segment]!.segment.paragraphArticle[hit.paragraph]! };
  }

  /** The JSON array of Context metadata of GET /retrieval/ (context id = rank, no reranking score). */
  contextsJson(hits: readonly ParagraphHit[]): Buffer {
    return contextsJson(this.segments, hits);
  }

  /** The JSON body of GET /retrieval/article_listing. */
  listingJson(page: ListingPage): Buffer {
    return listingJson(this.segments, page);
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
