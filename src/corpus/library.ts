/**
 * Reads article and paragraph metadata out of a loaded index, in the API's
 * shapes (Context metadata and article listing items): as objects for QA and
 * the platform, and as response bytes assembled from the stored JSON fragments
 * for the routes that return many of them (hits-json.ts).
 */
import type { ArticleMetadata, ContextMetadata } from './model.js';
import type { ArticleLocation, Searcher, ParagraphHit } from '../search/searcher.js';
import type { ParagraphFields } from '../search/stored/fragment-fields.js';
import { contextsJson, listingJson, type ListingPage } from './hits-json.js';

export class Library {
  private byId?: Map<string, ArticleLocation>;

  constructor(private readonly searcher: Searcher) {}

  articleMetadata({ segment, article }: ArticleLocation): ArticleMetadata {
    return this.searcher.storedFields(segment).articleFields(article);
  }

  private paragraphFields(hit: Pick<ParagraphHit, 'segment' | 'paragraph'>): ParagraphFields {
    return this.searcher.storedFields(hit.segment).paragraphFields(hit.paragraph);
  }

  paragraphText(hit: Pick<ParagraphHit, 'segment' | 'paragraph'>): string {
    return this.searcher.storedFields(hit.segment).paragraphText(hit.paragraph);
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
    const stored = this.searcher.storedFields(segment);
    const articleFits = stored.articleLength(article) <= limit || this.articleMetadata({ segment, article }).abstract.length <= limit;
    if (!articleFits || paragraph === null) return articleFits;
    return stored.paragraphLength(paragraph) <= limit || stored.paragraphText(paragraph).length <= limit;
  }

  /**
   * Whether a paragraph's text is shorter than `limit` characters. Its stored
   * fragment holds the text and more, at least one byte per UTF-16 unit, so a
   * fragment under `limit` bytes answers without a read (with no limit, no
   * hit is read at all).
   */
  paragraphShorterThan(hit: Pick<ParagraphHit, 'segment' | 'paragraph'>, limit: number): boolean {
    return this.searcher.storedFields(hit.segment).paragraphLength(hit.paragraph) < limit || this.paragraphText(hit).length < limit;
  }

  /** Where the article of a paragraph hit is. */
  hitArticle(hit: Pick<ParagraphHit, 'segment' | 'paragraph'>): ArticleLocation {
    return { segment: hit.segment, article: this.searcher.articleOfParagraph(hit.segment, hit.paragraph) };
  }

  /** The JSON array of Context metadata of GET /retrieval/ (context id = rank, no reranking score). */
  contextsJson(hits: readonly ParagraphHit[]): Promise<Buffer> {
    return contextsJson(this.searcher, hits);
  }

  /** The JSON body of GET /retrieval/article_listing. */
  listingJson(page: ListingPage): Promise<Buffer> {
    return listingJson(this.searcher, page);
  }

  /** Location of a live article by id (the map is built on first use). */
  locate(articleId: string): ArticleLocation | null {
    if (!this.byId) {
      const byId = new Map<string, ArticleLocation>();
      this.searcher.forEachLiveArticle((id, location) => byId.set(id, location));
      this.byId = byId;
    }
    return this.byId.get(articleId) ?? null;
  }

  getArticle(articleId: string): ArticleMetadata | null {
    const location = this.locate(articleId);
    return location && this.articleMetadata(location);
  }

  articleCount(): number {
    return this.searcher.statistics().articles;
  }

  /** Live article ids in index order, for paging through the corpus. */
  listArticleIds(offset: number, limit: number): string[] {
    this.locate('');
    return [...this.byId!.keys()].slice(offset, offset + limit);
  }
}
